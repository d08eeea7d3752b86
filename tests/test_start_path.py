"""The start over stdio: secrets leave the environment before anything heavy is imported
(so the imports are paid once), the MCP framework is never imported, and the serving
process's /proc entries hold no secret (tests spawn `main.py serve`)."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

from github_mcp.serving.secrets_handoff import SECRET_ENV_NAMES, secret_env_names
from tests.conftest import ROOT
from tests.stdio_session import opening, run, tool_call


def _env(home: Path, api_url: str = "http://127.0.0.1:9", **extra: str) -> dict[str, str]:
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(home),
        "GITHUB_API_URL": api_url,
        "GITHUB_MCP_AUDIT_LOG": str(home / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(home / "ws"),
        **extra,
    }


def test_the_entry_points_secret_names_are_the_settings_secret_fields():
    """The entry point moves secrets before pydantic is imported, from a list of its own:
    it must name every SecretStr setting under each of its environment names."""
    assert secret_env_names() == SECRET_ENV_NAMES


def test_the_hand_off_carries_any_value_bytes_unchanged(tmp_path):
    """Secrets cross the re-exec as the OS keeps them: bytes that are not UTF-8 and an
    empty value arrive exactly, and the new image's /proc environ holds neither name."""
    probe = (
        "import os, sys\n"
        "from pathlib import Path\n"
        "from github_mcp.serving.secrets_handoff import hand_off, take_secrets\n"
        "hand_off()\n"
        "got = take_secrets(reexec=False)\n"
        "environ = Path('/proc/self/environ').read_bytes()\n"
        "print(repr(sorted((k, os.fsencode(v.get_secret_value())) for k, v in got.items())))\n"
        "print(b'GITHUB_TOKEN=' in environ, b'GITHUB_MCP_AUTH_TOKENS=' in environ)\n"
    )
    env = {
        b"PATH": os.environb[b"PATH"],
        b"HOME": os.fsencode(tmp_path),
        b"GITHUB_TOKEN": b"",
        b"GITHUB_MCP_AUTH_TOKENS": b"tok-\xff\xfe-=,end",
    }
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    handed, in_environ = done.stdout.decode().splitlines()
    assert handed == repr([("auth_tokens", b"tok-\xff\xfe-=,end"), ("github_token", b"")])
    assert in_environ == "False False"


def test_the_serving_process_environment_holds_no_secret(forge, forge_token, tmp_path):
    bearer = "bearer-" + os.urandom(8).hex()
    env = _env(tmp_path, forge.base_url, GITHUB_TOKEN=forge_token, GITHUB_MCP_AUTH_TOKENS=bearer)
    seen: dict[str, bytes] = {}

    def read_proc(session):  # while the server still serves, after its first call
        for part in ("environ", "cmdline"):
            seen[part] = Path(f"/proc/{session.pid}/{part}").read_bytes()

    for _ in range(2):  # a second start meets what the first left behind
        session = run(
            [sys.executable, "main.py", "serve"],
            [*opening(), [tool_call(3, "get_me", {})]],
            cwd=ROOT,
            env=env,
            before_close=read_proc,
        )
        me = session.result(3)
        assert me.get("isError") is not True, me  # authenticated with the handed token
        assert me["structuredContent"]["login"] == "octocat"
        for secret in (forge_token, bearer):
            assert secret.encode() not in seen["environ"] + seen["cmdline"]
        assert b"GITHUB_TOKEN=" not in seen["environ"]
        assert b"GITHUB_API_URL=" + forge.base_url.encode() in seen["environ"]  # the rest stays
        assert session.returncode == 0


def test_with_a_token_the_server_imports_its_libraries_once(tmp_path):
    """The re-exec that drops secrets comes before the heavy imports: `-X importtime`
    (kept across the re-exec) shows pydantic imported by one process only, and the MCP
    framework by none: the stdio server answers the protocol itself."""
    env = _env(tmp_path, GITHUB_TOKEN="ghp_" + "y" * 36)
    log = tmp_path / "importtime.log"
    with log.open("wb") as stderr:
        session = run(
            [sys.executable, "-X", "importtime", "main.py", "serve"],
            opening(),
            cwd=ROOT,
            env=env,
            stderr=stderr,
        )
    assert session.result(2)["tools"]
    text = log.read_text(errors="replace")
    for module in ("pydantic", "github_mcp.config", "fastmcp", "mcp", "mcp_types"):
        imported = re.findall(rf"^import time:.*\|\s+{re.escape(module)}$", text, re.MULTILINE)
        assert len(imported) == (0 if module in ("fastmcp", "mcp", "mcp_types") else 1), (
            module,
            imported,
        )


def test_the_listing_is_answered_before_the_call_machinery_is_imported(tmp_path):
    """`tools/list` comes from the tool index: the call seam, the pipeline's steps and the
    workspace services are imported after the listing (by the warm-up, or by a call), so
    a client that lists and pauses does not wait for them. The order is the stderr
    stream's: `-X importtime` lines and the JSON log share it."""
    env = _env(tmp_path, GITHUB_TOKEN="ghp_" + "w" * 36, GITHUB_MCP_LOG_LEVEL="INFO")
    log = tmp_path / "importtime.log"
    steps = [*opening(), [tool_call(3, "get_me", {})]]
    with log.open("wb") as stderr:
        session = run(
            [sys.executable, "-X", "importtime", "main.py", "serve"],
            steps,
            cwd=ROOT,
            env=env,
            stderr=stderr,
        )
    assert session.result(2)["tools"]
    assert "content" in session.result(3)  # the call ran, whatever GitHub answered
    text = log.read_text(errors="replace")
    listed = text.index('"stdio_listed"')

    def imported_at(module: str) -> int | None:
        found = re.search(rf"^import time:.*\|\s+{re.escape(module)}$", text, re.MULTILINE)
        return None if found is None else found.start()

    # the call's machinery, imported by `import` statements (importlib.import_module, as
    # the warm-up uses, prints no line for the module it is given, only for its imports)
    for module in ("github_mcp.pipeline.running", "github_mcp.pipeline.steps"):
        at = imported_at(module)
        assert at is not None, f"{module} was never imported"
        assert at > listed, f"{module} was imported before the listing"
    # the workspace services: only the warm-up or a workspace tool imports them
    at = imported_at("github_mcp.services.workspace")
    assert at is None or at > listed, "the workspace services were imported before the listing"
    early = re.search(r"^import time:.*\|\s+github_mcp\.config$", text, re.MULTILINE)
    assert early is not None and early.start() < listed


def test_sigterm_ends_a_stdio_server_whose_client_holds_stdin_open(tmp_path):
    """A client that stops a server with SIGTERM (stdin still open): the server runs its
    cleanup and exits 0, instead of waiting forever for the thread that reads stdin."""
    env = _env(tmp_path, GITHUB_TOKEN="ghp_" + "t" * 36, GITHUB_MCP_LOG_LEVEL="INFO")
    proc = _serve_over_stdio(env)
    assert proc.stdin and proc.stdout and proc.stderr
    try:
        _open(proc)
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        proc.stdin.close()
    assert code == 0
    assert b'"shutdown_requested"' in proc.stderr.read()


def test_the_collector_is_off_while_stdio_starts_and_on_after_the_warm_up(tmp_path):
    """Start-up makes ~50 000 lasting objects and almost no garbage, so collections while
    they are made are wasted: the entry point turns the collector off for `serve` over
    stdio, and the warm-up (the client quiet after its listing) collects once and turns it
    back on.
    Evidence: the JSON log's `serving` and `stdio_warm` events, which say its state."""
    env = _env(tmp_path, GITHUB_TOKEN="ghp_" + "g" * 36, GITHUB_MCP_LOG_LEVEL="INFO")
    proc = _serve_over_stdio(env)
    assert proc.stdin and proc.stdout and proc.stderr
    events: dict[str, dict] = {}
    try:
        _open(proc)
        # the client is quiet now: the warm-up runs to its end (pytest's timeout bounds a hang)
        while "stdio_warm" not in events:
            line = proc.stderr.readline()
            assert line, f"stderr ended before the warm-up did: {sorted(events)}"
            record = json.loads(line)
            events.setdefault(record.get("event"), record)
    finally:
        proc.kill()
        proc.wait()
        proc.stdin.close()
    assert events["serving"]["collector"] is False
    assert events["gc_tuned"]["frozen_objects"] > 50_000  # the one collection, then frozen
    assert events["stdio_warm"]["collector"] is True


def test_main_app_is_made_on_first_use():
    """`uvicorn main:app` still finds its app, and a `serve` that re-executes itself did not
    import it (nor typing) first."""
    probe = (
        "import sys, main\n"
        "before = {'github_mcp.serving.lazy_app', 'typing'} & set(sys.modules)\n"
        "print(sorted(before), type(main.app).__name__, main.app is main.app)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.split() == ["[]", "LazyApp", "True"]


def test_a_server_alone_imports_no_redis_client():
    """Only replicas (GITHUB_MCP_STATE_URL) import the shared-state package and redis-py
    (with its telemetry), a large share of a start: the HTTP app's modules do not."""
    probe = (
        "import sys, github_mcp.serving.server, github_mcp.serving.framework_tools;"
        "print(sorted(m for m in ('redis', 'github_mcp.state') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert done.stdout.strip() == "[]"


def test_stdio_lists_the_repository_arguments_without_header_declarations(tmp_path):
    """Over stdio no argument travels as an HTTP header, so the listing leaves SEP-2243's
    `x-mcp-header` out (the model's context pays for every byte); over HTTP it is declared
    (tests/test_repo_header.py)."""
    session = run([sys.executable, "main.py", "serve"], opening(), cwd=ROOT, env=_env(tmp_path))
    tools = {t["name"]: t for t in session.result(2)["tools"]}
    assert "full_name" in tools["get_repository"]["inputSchema"]["properties"]
    assert "x-mcp-header" not in json.dumps(list(tools.values()))


def _serve_over_stdio(env: dict[str, str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "main.py", "serve"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def _open(proc: subprocess.Popen[bytes]) -> None:
    """The client's opening (initialize, initialized, tools/list), each answer read."""
    assert proc.stdin and proc.stdout
    for step in opening():
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in step))
        proc.stdin.flush()
        proc.stdout.readline()  # the answer to this step's request
