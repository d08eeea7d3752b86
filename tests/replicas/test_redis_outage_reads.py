"""No stale read after an acknowledged write while Redis is down or frozen.

Replica B has a warm cache of a file; a write through replica A is acknowledged (A bumps
the repository's generation in Redis); then Redis stops (or freezes, SIGSTOP). B cannot
check the generation, so it serves nothing cached about the repository: it reads from
GitHub and tells the client so. SHA-addressed data (a read at a commit) may still come
from B's cache. Two runtimes on one real redis-server, over the sandbox forge."""

from __future__ import annotations

import signal
from typing import Any

import pytest
from fastmcp import Client

from github_mcp.serving.server import build_mcp
from tests.conftest import call_tool, mcp_client, requests_matching
from tests.replicas.cluster import Redis
from tests.test_tools_write import new_repo


@pytest.fixture
def redis_server(tmp_path):
    server = Redis(tmp_path / "redis")
    yield server
    if server.proc is not None:
        server.proc.send_signal(signal.SIGCONT)
    server.stop()


def _read(path: str, repo: str, ref: str = "main") -> tuple[str, dict[str, Any]]:
    return "get_file_contents", {"full_name": repo, "path": path, "ref": ref}


@pytest.mark.parametrize("outage", ["stopped", "frozen"])
async def test_no_stale_read_after_an_acknowledged_write(make_runtime, forge, redis_server, outage):
    repo = new_repo(forge, {"README.md": "old\n"}, branches={}, prefix="outage-org")
    a = make_runtime(state_url=redis_server.url, auto_approve=True)
    b = make_runtime(state_url=redis_server.url)
    messages: list[Any] = []

    async def on_log(message: Any) -> None:
        messages.append(message)

    async with mcp_client(a) as client_a, Client(build_mcp(b), log_handler=on_log) as client_b:
        _, warm = await call_tool(client_b, *_read("README.md", repo))
        assert warm["content"] == "old\n"
        is_error, written = await call_tool(
            client_a,
            "commit_files",
            {
                "full_name": repo,
                "branch": "main",
                "message": "new",
                "files": [{"path": "README.md", "content": "new\n"}],
            },
        )
        assert not is_error, written  # acknowledged
        if outage == "stopped":
            redis_server.stop()
        else:
            assert redis_server.proc is not None
            redis_server.proc.send_signal(signal.SIGSTOP)
        forge.clear_requests()
        answers = [await call_tool(client_b, *_read("README.md", repo)) for _ in range(3)]
    for is_error, read in answers:
        assert not is_error, read
        assert read["content"] == "new\n"  # never the old content
    # each read resolved main at GitHub (the forge saw it), none from B's cache
    assert len(requests_matching(forge, "GET", f"/repos/{repo}/git/ref/heads/main")) == 3
    notes = [m.data["msg"] for m in messages if m.level == "notice"]
    assert any("read from GitHub" in note for note in notes)
