"""A gated write run as an MCP task (2026-07-28, `io.modelcontextprotocol/tasks`): the
task stops at `input_required` with the approval page's URL and nothing lands; the human
approves on the page (headless Chromium), the client answers with `tasks/update`, and the
task completes with the write's result. The push lands exactly once (the forge's branch
head has the old head as its only parent). A denial completes the task with the refusal
and leaves the branch where it was. Another credential's task is not found."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from fastmcp_tasks import ToolTask, call_tool_task
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitResult

from tests.approvals.conftest import (
    TOKEN_A,
    TOKEN_B,
    branch_head,
    commit_parents,
    visit_approval_page,
)
from tests.conftest import traversable


def _human(choice: str, links: list[str], visits: list[asyncio.Task[Any]]) -> Any:
    """The client's human: asked to open the approval page, opens it and decides."""

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        links.append(params.url)
        visits.append(asyncio.create_task(visit_approval_page(params.url, choice, token=TOKEN_A)))
        return ElicitResult(action="accept")  # they agreed to open the page

    return human


async def _gated_commit_as_task(
    served_url: str, repo: str, workspaces: Any, choice: str
) -> tuple[Any, Any, list[str], Any]:
    links: list[str] = []
    visits: list[asyncio.Task[Any]] = []
    transport = StreamableHttpTransport(served_url + "/mcp", auth=TOKEN_A)
    human = _human(choice, links, visits)
    async with Client(transport, elicitation_handler=human, timeout=120) as client:
        await client.list_tools()  # to learn which arguments go in headers
        where = {"full_name": repo, "ref": "main"}
        cloned = await client.call_tool("ensure_workspace_clone", where)
        assert not cloned.is_error, cloned
        clone = next(p.parent for p in workspaces.rglob("README.md") if "/.git/" not in str(p))
        (clone / "from-task.txt").write_text("written in the workspace\n")
        task = await call_tool_task(
            client,
            "commit_workspace",
            {"full_name": repo, "ref": "main", "message": "From a task", "push": True},
            raise_on_error=False,
        )
        asked = await task.wait(state="input_required", timeout=120)
        result = await task.result()  # the human is asked, then tasks/update, then polls
        visit = await visits[0]
    return asked, result, links, visit


async def test_approved_on_the_page_the_task_pushes_once(
    approval_server, fresh_repo, forge, tmp_path
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    workspaces = traversable(tmp_path) / "ws"
    with approval_server(workspace_dir=workspaces, workspace_sandbox="none") as served:
        asked, result, links, visit = await _gated_commit_as_task(
            served.url, repo, workspaces, "approve"
        )
    (request,) = (asked.input_requests or {}).values()
    assert request["method"] == "elicitation/create"
    assert request["params"]["mode"] == "url"
    assert request["params"]["url"].startswith(served.url + "/approvals/")
    assert links == [request["params"]["url"]]
    assert visit.outcome == "approved"
    assert not result.is_error, result
    assert result.structured_content["pushed"] is True, result.structured_content
    head = branch_head(forge, repo)
    assert head != before and commit_parents(forge, repo, head) == [before]  # exactly once


async def test_denied_on_the_page_the_task_completes_with_the_refusal(
    approval_server, fresh_repo, forge, tmp_path
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    workspaces = traversable(tmp_path) / "ws"
    with approval_server(workspace_dir=workspaces, workspace_sandbox="none") as served:
        asked, result, _links, visit = await _gated_commit_as_task(
            served.url, repo, workspaces, "deny"
        )
    assert asked.status == "input_required"
    assert visit.outcome == "denied"
    assert result.is_error
    assert "denied" in result.content[0].text
    assert branch_head(forge, repo) == before


async def test_another_callers_task_is_not_found(approval_server, fresh_repo, tmp_path):
    """Tasks are kept per credential: B cannot read or cancel A's task."""
    repo = fresh_repo()
    workspaces = traversable(tmp_path) / "ws"
    with approval_server(workspace_dir=workspaces, workspace_sandbox="none") as served:
        as_a = Client(StreamableHttpTransport(served.url + "/mcp", auth=TOKEN_A), timeout=120)
        as_b = Client(StreamableHttpTransport(served.url + "/mcp", auth=TOKEN_B), timeout=120)
        async with as_a, as_b:
            await as_a.list_tools()  # to learn which arguments go in headers
            where = {"full_name": repo, "ref": "main"}
            task = await call_tool_task(as_a, "ensure_workspace_clone", where)
            seen_by_b = ToolTask(as_b, "ensure_workspace_clone", task.create_result)
            with pytest.raises(MCPError) as refused:
                await seen_by_b.status()
            with pytest.raises(MCPError):
                await seen_by_b.cancel()
            final = await task.wait(timeout=120)
    assert "not found" in str(refused.value).lower(), refused.value
    assert final.status == "completed", final
