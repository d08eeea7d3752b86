"""Hosted tool views, as the official GitHub server's endpoint has them: /mcp/readonly,
/mcp/x/<toolset>[/readonly] and the X-MCP-Toolsets, X-MCP-Tools and X-MCP-Readonly headers,
over real streamable HTTP. A read-only view refuses writes: the evidence is the forge's
branch, which does not move."""

from __future__ import annotations

import httpx2 as httpx
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.config import DEFAULT_TOOLS, DEFAULT_TOOLSETS
from github_mcp.pipeline.registry import REGISTRY
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import call_tool, error_code
from tests.test_tools_write import head, new_repo

TOKEN = "views-token-0123456789"


async def listed(url: str, **headers: str) -> set[str]:
    async with Client(StreamableHttpTransport(url, headers=headers, auth=TOKEN)) as client:
        return {t.name for t in await client.list_tools()}


def names(*toolsets: str, writes: bool = True, tools: frozenset[str] = frozenset()) -> set[str]:
    return {
        s.name
        for s in REGISTRY.values()
        if (s.toolset.value in toolsets or s.name in tools)
        and (writes or not s.write)
        and not s.app_only
    }


async def test_paths_and_headers_choose_the_listed_tools(make_runtime):
    rt = make_runtime(auth_tokens=TOKEN, toolsets="default")
    defaults = {t.value for t in DEFAULT_TOOLSETS}
    with serve_in_thread(build_http_app(rt)) as url:
        plain = await listed(url + "/mcp")
        readonly = await listed(url + "/mcp/readonly")
        actions = await listed(url + "/mcp/x/actions")
        actions_ro = await listed(url + "/mcp/x/actions/readonly")
        every = await listed(url + "/mcp/x/all")
        by_header = await listed(url + "/mcp", **{"X-MCP-Toolsets": "issues, nonsense"})
        ro_header = await listed(url + "/mcp", **{"X-MCP-Readonly": "yes"})
        not_ro = await listed(url + "/mcp", **{"X-MCP-Readonly": "Off"})
        tools = await listed(url + "/mcp", **{"X-MCP-Tools": "get_me,list_workflow_runs"})
        unknown = httpx.post(
            url + "/mcp/x/nonsense",
            json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
            headers={"Authorization": f"Bearer {TOKEN}"},
        )
        unauthenticated = httpx.post(url + "/mcp/x/actions", json={})
    catalog = {"find_tools", "enable_toolset"}
    assert plain == names(*defaults, tools=DEFAULT_TOOLS)  # the default list's single tools too
    assert readonly == names(*defaults, writes=False, tools=DEFAULT_TOOLS)
    assert actions == names("actions") | catalog
    assert actions_ro == names("actions", writes=False) | catalog
    assert names("actions") - actions_ro  # its writes are not listed
    assert every == {n for n in rt.bound_specs if not rt.bound_specs.entries[n].app_only} - catalog
    assert by_header == names("issues") | catalog  # an unknown name is ignored, as GitHub's
    assert ro_header == readonly and not_ro == plain
    assert tools == {"get_me", "list_workflow_runs"} | catalog
    assert unknown.status_code == 404 and "unknown toolset" in unknown.text
    assert unauthenticated.status_code == 401  # a view path is guarded as /mcp is


async def test_a_read_only_view_refuses_writes(make_runtime, forge):
    repo = new_repo(forge, prefix="views-org")
    before = head(forge, repo, "feature")
    rt = make_runtime(auth_tokens=TOKEN, auto_approve=True, toolsets="default")
    args = {
        "full_name": repo,
        "branch": "feature",
        "files": [{"path": "x.txt", "content": "x\n"}],
        "message": "x",
    }
    with serve_in_thread(build_http_app(rt)) as url:
        transport = StreamableHttpTransport(url + "/mcp/readonly", auth=TOKEN)
        async with Client(transport) as client:
            is_error, refused = await call_tool(client, "commit_files", args)
            read_error, read = await call_tool(client, "get_repository", {"full_name": repo})
        headers = {"X-MCP-Readonly": "true"}
        transport = StreamableHttpTransport(url + "/mcp", headers=headers, auth=TOKEN)
        async with Client(transport) as client:
            header_error, by_header = await call_tool(client, "commit_files", args)
    assert is_error and error_code(refused) == "write_not_allowed"
    assert header_error and error_code(by_header) == "write_not_allowed"
    assert not read_error and read["full_name"] == repo
    assert head(forge, repo, "feature") == before  # nothing was written
