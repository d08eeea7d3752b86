"""delete_repository asks the human (form elicitation) and the approval is bound to the
repository as they were shown it: its id and default branch head appear in the prompt,
and a push landing while the human decides leaves the repository in place (conflict).
Evidence is the forge: whether the repository and its bare git directory still exist."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from github_mcp.serving.server import build_mcp
from tests.approvals.test_form import Human
from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_repo_admin import forge_repo
from tests.test_tools_write import git, new_repo


async def test_the_human_sees_the_repository_and_each_deletion_is_asked(
    make_runtime,
    forge,
):
    keep, drop = new_repo(forge, prefix="delete-org"), new_repo(forge, prefix="delete-org")
    record = forge_repo(forge, drop)
    human = Human("deny", "approve")
    async with Client(
        build_mcp(make_runtime(allow_repo_delete=True)), elicitation_handler=human, mode="legacy"
    ) as client:
        _, denied = await call_tool(client, "delete_repository", {"full_name": keep})
        is_error, deleted = await call_tool(client, "delete_repository", {"full_name": drop})
    assert error_code(denied) == "write_not_allowed" and forge_repo(forge, keep) is not None
    assert not is_error, deleted
    assert forge_repo(forge, drop) is None and not record.git.path.exists()
    shown = human.prompts[1].message
    assert "delete_repository" in shown and drop in shown and str(record.id) in shown


class PushWhileDeciding:
    """Approves, but a commit lands on the default branch while the human decides."""

    def __init__(self, forge: Any, full_name: str) -> None:
        self.forge, self.full_name = forge, full_name

    async def __call__(self, message: str, response_type: Any, params: Any, context: Any) -> Any:
        head = git(self.forge, self.full_name, "rev-parse", "main").strip()
        tree = git(self.forge, self.full_name, "rev-parse", "main^{tree}").strip()
        new = git(self.forge, self.full_name, "commit-tree", tree, "-p", head, "-m", "late").strip()
        git(self.forge, self.full_name, "update-ref", "refs/heads/main", new, head)
        return "approve"


async def test_a_push_after_the_approval_keeps_the_repository(
    make_runtime,
    forge,
):
    repo = new_repo(forge, prefix="delete-org")
    human = PushWhileDeciding(forge, repo)
    async with Client(
        build_mcp(make_runtime(allow_repo_delete=True)), elicitation_handler=human, mode="legacy"
    ) as client:
        _, moved = await call_tool(client, "delete_repository", {"full_name": repo})
    assert error_code(moved) == "conflict", moved
    assert forge_repo(forge, repo) is not None


async def test_an_approval_window_does_not_cover_a_deletion(
    make_runtime,
    forge,
):
    first, second = new_repo(forge, prefix="delete-org"), new_repo(forge, prefix="delete-org")
    other = new_repo(forge, prefix="delete-org")
    human = Human("approve_window", "deny")
    rt = make_runtime(allow_repo_delete=True, approval_window_minutes=10)
    async with Client(build_mcp(rt), elicitation_handler=human, mode="legacy") as client:
        is_error, deleted = await call_tool(client, "delete_repository", {"full_name": first})
        assert not is_error, deleted
        # the window covers other unscoped writes: an issue is created without asking
        is_error, issue = await call_tool(
            client, "create_issue", {"full_name": other, "title": "x"}
        )
        assert not is_error, issue
        _, refused = await call_tool(client, "delete_repository", {"full_name": second})
    assert len(human.prompts) == 2  # the second deletion was asked about, and denied
    assert error_code(refused) == "write_not_allowed"
    assert forge_repo(forge, first) is None and forge_repo(forge, second) is not None


async def test_in_tool_mode_the_models_own_approval_does_not_delete(make_runtime, forge):
    repo = new_repo(forge, prefix="delete-org")
    rt = make_runtime(allow_repo_delete=True, approval_mode="tool")
    async with mcp_client(rt) as client:
        _, granted = await call_tool(client, "authorize_write_actions", {"approved": True})
        _, issue = await call_tool(client, "create_issue", {"full_name": repo, "title": "x"})
        _, refused = await call_tool(client, "delete_repository", {"full_name": repo})
    assert "error" not in granted and "error" not in issue, (granted, issue)
    assert error_code(refused) == "write_not_allowed"
    assert "approved on its own" in refused["error"]["hint"]
    assert forge_repo(forge, repo) is not None
