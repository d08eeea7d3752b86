"""delete_repository asks the human (form elicitation) and the approval is bound to the
repository as they were shown it: its id and default branch head appear in the prompt,
and a push landing while the human decides leaves the repository in place (conflict).
Evidence is the forge: whether the repository and its bare git directory still exist."""

from __future__ import annotations

from typing import Any

from fastmcp import Client

from github_mcp.serving.server import build_mcp
from tests.approvals.test_form import Human
from tests.conftest import call_tool, error_code
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
