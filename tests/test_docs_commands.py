"""Every shell block of README.md and docs/DEPLOY.md says how it is checked, in its info
string, and the checkable ones are run here against a sandbox forge seeded with the demo:

    ```sh tested           each line runs to exit 0
    ```sh tested-serving   each line starts a server that must come up and listen
    ```sh untested: why    not runnable here (a real GitHub token, docker, a public host)

`github-mcp-controller` is on PATH as a shim that runs the same entry point from this
checkout (`python -m github_mcp`); tests/test_packaging.py checks the installed script.
"""

from __future__ import annotations

import os
import re
import signal
import socket
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCS = [ROOT / "README.md", ROOT / "docs" / "DEPLOY.md"]
FENCE = re.compile(r"^ *```(sh|bash)([^\n]*)\n(.*?)^ *```", re.M | re.S)


def blocks() -> list[tuple[str, str, str]]:
    """(file, marker, body) of every shell block."""
    found = []
    for doc in DOCS:
        for match in FENCE.finditer(doc.read_text()):
            found.append((doc.name, match[2].strip(), match[3]))
    return found


def commands(body: str) -> list[str]:
    """Logical lines (backslash continuations joined), comments dropped."""
    joined = re.sub(r"\\\n\s*", " ", body)
    lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
    return [line for line in lines if line and not line.startswith("#")]


def test_every_shell_block_says_how_it_is_checked():
    unmarked = [
        (name, body.splitlines()[0])
        for name, marker, body in blocks()
        if not (marker in ("tested", "tested-serving") or marker.startswith("untested: "))
    ]
    assert not unmarked, f"mark these blocks tested / tested-serving / untested: why: {unmarked}"
    assert sum(marker.startswith("tested") for _, marker, _ in blocks()) >= 4


@pytest.fixture(scope="module")
def demo_forge():
    from sandbox_forge import Forge
    from sandbox_forge.admin.seed import seed_demo

    with Forge() as forge:
        seed_demo(forge)
        yield forge, forge.create_token(login="octocat")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture
def shell_env(demo_forge, tmp_path) -> dict[str, str]:
    forge, token = demo_forge
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    shim = bin_dir / "github-mcp-controller"
    shim.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m github_mcp "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    return env | {
        "PATH": f"{bin_dir}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}",
        "PYTHONPATH": str(ROOT),
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }


TESTED = [(n, c) for n, m, b in blocks() if m == "tested" for c in commands(b)]
SERVING = [(n, c) for n, m, b in blocks() if m == "tested-serving" for c in commands(b)]


@pytest.mark.parametrize(("doc", "command"), TESTED, ids=[c for _, c in TESTED])
def test_documented_command_runs(doc, command, shell_env):
    done = subprocess.run(
        ["bash", "-c", command], cwd=ROOT, env=shell_env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, f"{doc}: {command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    assert done.stdout.strip(), f"{doc}: {command} printed nothing"


@pytest.mark.parametrize(("doc", "command"), SERVING, ids=[c for _, c in SERVING])
def test_documented_server_comes_up(doc, command, shell_env):
    port = _free_port()
    # the documented port (make run PORT=9000) or the default is moved to a free one
    command = re.sub(r"PORT=\d+", f"PORT={port}", command)
    proc = subprocess.Popen(
        ["bash", "-c", command], cwd=ROOT, env=shell_env | {"PORT": str(port)},
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            time.sleep(0.2)
        assert proc.poll() is None, f"{doc}: {command} exited {proc.returncode}"
        with socket.socket() as probe:
            assert probe.connect_ex(("127.0.0.1", port)) == 0, f"{command}: not listening"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=60)
