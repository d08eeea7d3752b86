"""The Docker image, checked without a Docker engine (the test machine has none):

- the Dockerfile through BuildKit's own parser and tests/dockerfile_lint.py (unknown
  instructions, shell-form entry points, COPY sources missing from the build context);
- the image's start, as the image runs it: its ENTRYPOINT and CMD, with its ENV (paths
  under a directory standing in for the image's root), from the wheel installed in a
  clean venv as the image's `pip install` does, with the operator's extra_tools.py on
  PYTHONPATH. It must answer /healthz, satisfy the image's own HEALTHCHECK command, and
  answer an MCP client's tool call over streamable HTTP with the forge's data;
- deploy/compose.yaml against the compose specification's JSON schema.
"""

from __future__ import annotations

import json
import re
import shutil
import signal
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from tests.conftest import ROOT
from tests.dockerfile_lint import environment, last, parse, problems
from tests.installed import build_wheel, clean_env, fresh_venv

DOCKERFILE = ROOT / "Dockerfile"
# what the image's `pip install /tmp/src` and its `cp` take from the build context
BUILD_INPUTS = ("pyproject.toml", "README.md", "github_mcp", "sandbox_forge", "extra_tools.py")


def test_the_dockerfile_parses_and_passes_the_lint():
    assert problems(DOCKERFILE, ROOT) == []
    commands = parse(DOCKERFILE)
    assert json.loads(last(commands, "ENTRYPOINT").original.split(None, 1)[1]) == [
        "github-mcp-controller"
    ]
    ignored = [name for name in BUILD_INPUTS if _left_out(name)]
    assert ignored == [], f".dockerignore leaves out what the image installs: {ignored}"
    # the checkout's venv and caches stay out of the build context
    assert all(_left_out(name) for name in (".venv", ".git", ".cache"))


def _left_out(name: str) -> bool:
    from tests.dockerfile_lint import ignored

    return ignored(ROOT).match_file(name)


@pytest.mark.parametrize(
    ("change", "expected"),
    [
        (lambda t: t.replace("\nWORKDIR /app\n", "\nXX\nWORKDIR /app\n"), "unknown instruction"),
        (lambda t: t.replace("COPY requirements.txt", "COPY requirements-prod.txt"),
         "requirements-prod.txt is not in the build context"),
        (lambda t: t.replace('ENTRYPOINT ["github-mcp-controller"]',
                             "ENTRYPOINT github-mcp-controller"), "exec (JSON array) form"),
        (lambda t: t.replace("cp /tmp/src/extra_tools.py", "cp /tmp/src/extra_tool.py"),
         "extra_tool.py is not in the build context"),
    ],
    ids=["stray word", "missing COPY source", "shell-form entry point", "missing copied file"],
)  # fmt: skip
def test_the_lint_catches_a_broken_dockerfile(change, expected, tmp_path):
    broken = tmp_path / "Dockerfile"
    broken.write_text(change(DOCKERFILE.read_text()))
    assert broken.read_text() != DOCKERFILE.read_text()
    found = problems(broken, ROOT)
    assert any(expected in p for p in found), found


def test_the_compose_file_is_valid_against_the_compose_specification():
    """The schema check-jsonschema ships (vendored from the compose-spec repository)."""
    done = _check_compose(ROOT / "deploy" / "compose.yaml")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "ok -- validation done" in done.stdout


def test_the_compose_check_can_fail(tmp_path):
    broken = tmp_path / "compose.yaml"
    text = (ROOT / "deploy" / "compose.yaml").read_text()
    broken.write_text(text.replace("  healthcheck:\n", "  healtcheck:\n"))
    done = _check_compose(broken)
    assert done.returncode == 1 and "healtcheck" in done.stdout + done.stderr


def _check_compose(path: Path) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "check_jsonschema", "--builtin-schema", "vendor.compose-spec",
         str(path)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


# -- the image's start ------------------------------------------------------------------


@pytest.fixture(scope="module")
def image_venv(tmp_path_factory) -> Path:
    tmp = tmp_path_factory.mktemp("image")
    return fresh_venv(build_wheel(tmp), tmp / "venv")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _in_root(root: Path, value: str) -> str:
    """An absolute path of the image, under the directory standing in for its root."""
    return str(root / value.lstrip("/")) if value.startswith("/") else value


def _image_start(root: Path, venv: Path, port: int) -> tuple[list[str], dict[str, str], Path]:
    """(argv, env, cwd) of the image's start, its paths under `root`."""
    commands = parse(DOCKERFILE)
    env = {name: _in_root(root, value) for name, value in environment(commands).items()}
    for volume in json.loads(last(commands, "VOLUME").original.split(None, 1)[1]):
        Path(_in_root(root, volume)).mkdir(parents=True, exist_ok=True)
    extensions = Path(env["PYTHONPATH"])
    extensions.mkdir(parents=True)
    shutil.copy(ROOT / "extra_tools.py", extensions)  # the image's `cp` of the extension point
    workdir = Path(_in_root(root, last(commands, "WORKDIR").value[0]))
    workdir.mkdir(parents=True, exist_ok=True)
    argv = list(last(commands, "ENTRYPOINT").value) + list(last(commands, "CMD").value)
    exposed = last(commands, "EXPOSE").value[0]
    assert argv[argv.index("--port") + 1] == exposed  # the port the image says it serves
    argv[argv.index("--port") + 1] = str(port)
    home = root / "home" / "mcp"
    home.mkdir(parents=True)
    base = clean_env(home)
    env = base | env | {"PATH": f"{venv / 'bin'}:{base['PATH']}"}
    return argv, env, workdir


def _healthcheck(port: int) -> list[str]:
    command = list(last(parse(DOCKERFILE), "HEALTHCHECK").value[1:])  # after CMD
    assert command[:2] == ["python", "-c"] and "127.0.0.1:8000/healthz" in command[2]
    return [command[0], command[1], command[2].replace(":8000/", f":{port}/")]


def _wait_ready(proc: subprocess.Popen, port: int) -> None:
    """Until /readyz says ready (the app is built and GitHub answers) or the server exits;
    each request's timeout only bounds a hang."""
    while proc.poll() is None:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=60):
                return
        except (urllib.error.URLError, ConnectionError, TimeoutError):
            try:
                proc.wait(timeout=0.2)
            except subprocess.TimeoutExpired:
                pass


async def test_the_images_entry_command_serves_from_the_installed_wheel(
    image_venv, forge, forge_token, tmp_path
):
    port = _free_port()
    root = tmp_path / "root"
    argv, env, workdir = _image_start(root, image_venv, port)
    assert argv[:2] == ["github-mcp-controller", "serve"] and "0.0.0.0" in argv
    bearer = "image-test-bearer-token-0123456789"
    env |= {
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUTH_TOKENS": bearer,  # required off loopback (the Dockerfile says so)
    }
    extension = subprocess.run(
        ["python", "-c", "import extra_tools, github_mcp; print(github_mcp.__file__)"],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert extension.returncode == 0, extension.stderr
    assert Path(extension.stdout.strip()).is_relative_to(image_venv)
    log = tmp_path / "stderr.log"
    with log.open("wb") as stderr:
        proc = subprocess.Popen(
            argv, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=stderr,
            start_new_session=True,
        )  # fmt: skip
    try:
        _wait_ready(proc, port)
        assert proc.poll() is None, log.read_text()[-3000:]
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=60) as answer:
            health = json.load(answer)
        assert answer.status == 200 and health["status"] == "ok"
        assert health["github_token_present"] is True
        healthy = subprocess.run(
            _healthcheck(port), cwd=workdir, env=env, capture_output=True, timeout=120
        )
        assert healthy.returncode == 0, healthy.stderr
        transport = StreamableHttpTransport(f"http://127.0.0.1:{port}/mcp", auth=bearer)
        async with Client(transport) as client:
            names = {t.name for t in await client.list_tools()}
            repo = await client.call_tool("get_repository", {"full_name": "octo-org/demo-app"})
        assert {"get_repository", "get_pr_overview", "find_tools"} <= names
        assert repo.structured_content["html_url"].startswith(forge.base_url)
        assert repo.structured_content["default_branch"] == "main"
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=120)
    err = log.read_bytes()
    assert proc.returncode == 0, err.decode()[-2000:]
    # the image's state went to its volume, not to the working directory
    assert not (workdir / "var").exists()
    assert re.search(rb'"event": "github_credentials"', err)
