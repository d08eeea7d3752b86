"""The toxic agent flow through reads that name no repository: a private repository's
secret reaches the model through an organisation project's items, the user's
notifications, the organisation's advisories or a search, and the model then tries to
publish it on a public repository (a branch named after it, a commit of it). The reads
are recorded from what GitHub returned, so every one of those writes needs a human who is
told which private repository was read.

Driven through real MCP clients against the forge: in process, over stdio in every
approval mode (a spawned server, its own process), and over HTTP. The evidence is the
forge's state (leak_scene.published: no public place holds the secret) and its request
log (no write reached the public repository)."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.elicitation import ElicitResult
from fastmcp.client.transports import StdioTransport

from tests.approvals.conftest import TOKEN_A, http_client
from tests.approvals.conftest import approval_server as approval_server  # the HTTP server
from tests.conftest import call_tool, error_code, mcp_client, traversable
from tests.security.leak_scene import LeakScene, make_scene, published, writes_to

ROOT = Path(__file__).resolve().parents[2]
READS = ["project_items", "notifications", "notification", "advisories", "search"]


@pytest.fixture
def scene(forge) -> LeakScene:
    return make_scene(forge)


async def read_and_try_to_leak(client: Client, scene: LeakScene, read: str) -> dict[str, Any]:
    """The steered model: the read shows the secret; then each publishing write. Returns
    the last refusal."""
    tool, args = scene.reads()[read]
    is_error, shown = await call_tool(client, tool, args)
    assert not is_error, shown
    assert scene.secret in str(shown), (read, shown)  # the secret did reach the model
    refused: dict[str, Any] = {}
    for name, leak in scene.leaks():
        is_error, refused = await call_tool(client, name, leak)
        assert is_error and error_code(refused) == "write_not_allowed", (read, name, refused)
        assert scene.vault in refused["error"]["private_repos_read"], (read, name, refused)
    return refused


def assert_nothing_published(forge: Any, scene: LeakScene) -> None:
    assert published(forge, scene.secret) == []
    assert writes_to(forge, scene, scene.site) == []


@pytest.mark.parametrize("read", READS)
async def test_a_read_that_names_no_repository_still_gates_the_public_write(
    make_runtime, forge, scene, read
):
    async with mcp_client(make_runtime()) as client:
        await read_and_try_to_leak(client, scene, read)
        policy = (await call_tool(client, "get_server_config"))[1]["write_policy"]
    assert scene.vault in policy["repos_read"]
    assert_nothing_published(forge, scene)


async def test_deny_mode_refuses_the_flow_whatever_was_approved(make_runtime, forge, scene):
    rt = make_runtime(cross_visibility="deny", auto_approve=True)
    async with mcp_client(rt) as client:
        for read in READS:
            tool, args = scene.reads()[read]
            assert not (await call_tool(client, tool, args))[0]
        for name, leak in scene.leaks():
            is_error, refused = await call_tool(client, name, leak)
            assert is_error and refused["error"]["reason"] == "cross_visibility", refused
            assert scene.vault in refused["error"]["message"]
    assert_nothing_published(forge, scene)


async def test_with_the_vault_outside_the_allow_list_its_unknown_visibility_counts_as_private(
    make_runtime, forge, scene
):
    """The project's item from a repository outside the allow-list is listed without its
    content, and the server may not ask GitHub about that repository: it counts as
    private, so the public write is still gated."""
    rt = make_runtime(repo_allowlist=f"{scene.site}")
    async with mcp_client(rt) as client:
        tool, args = scene.reads()["project_items"]
        _, items = await call_tool(client, tool, args)
        assert scene.secret not in str(items)
        name, leak = scene.leaks()[0]
        is_error, refused = await call_tool(client, name, leak)
    assert is_error and scene.vault in refused["error"]["private_repos_read"], refused
    assert_nothing_published(forge, scene)


# -- over stdio, in every approval mode -------------------------------------------------


def stdio_server(forge: Any, token: str, tmp_path: Path, **env: str) -> StdioTransport:
    keep = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    settings = {
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_TOOLSETS": "all",
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(traversable(tmp_path) / "ws"),
        "GITHUB_MCP_STATE_DIR": str(tmp_path / "state"),
    }
    return StdioTransport(
        command=sys.executable,
        args=["-m", "github_mcp", "serve"],
        env=keep | settings | env,
        cwd=str(ROOT),
        keep_alive=False,
    )


class Human:
    """The person behind a stdio client that can show a form: says no, and keeps what
    they were asked."""

    def __init__(self) -> None:
        self.prompts: list[str] = []

    async def __call__(self, message: str, *_: Any) -> ElicitResult:
        self.prompts.append(message)
        return ElicitResult(action="decline")


@pytest.mark.parametrize("mode", ["auto", "tool", "elicit", "env"])
@pytest.mark.parametrize("read", READS)
async def test_over_stdio_every_approval_mode_holds(
    forge, forge_token, tmp_path, scene, mode, read
):
    human = Human()
    transport = stdio_server(forge, forge_token, tmp_path, GITHUB_MCP_APPROVAL_MODE=mode)
    # in auto mode the client shows a form: the human is asked, and says no
    asks = {"elicitation_handler": human} if mode == "auto" else {}
    async with Client(transport, **asks) as client:
        await read_and_try_to_leak(client, scene, read)
    if mode == "auto":
        assert human.prompts and all(scene.vault in p for p in human.prompts), human.prompts
    else:
        assert human.prompts == []
    assert_nothing_published(forge, scene)


# -- over HTTP ----------------------------------------------------------------------------


async def test_over_http_each_read_gates_the_write_and_the_link_names_the_vault(
    approval_server, forge, scene
):
    with approval_server() as served:
        for read in READS:
            # a fresh session each time: its record starts empty
            async with http_client(served.url, TOKEN_A) as model:
                refused = await read_and_try_to_leak(model, scene, read)
                assert refused["error"]["approval_url"].startswith(served.url)
    assert_nothing_published(forge, scene)
