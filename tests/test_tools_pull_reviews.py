"""Pull-request review tools (toolset pull_request_reviews) through a real MCP client against
the forge: requested reviewers (users and teams), the draft state, updating a PR's branch
from its base, pending reviews and reactions on review comments. Writes on the PR need a
human (refused without approval, nothing reaches the forge); updating the branch is gated
by the PR's head branch. Evidence comes from the forge's pull and review records; every
request and response is checked against GitHub's OpenAPI description."""

from __future__ import annotations

from sandbox_forge.git.pulls import web_flow_signature
from sandbox_forge.git.store import TreeChange
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import get_pull
from sandbox_forge.stores.pulls import create_pull
from sandbox_forge.stores.social import add_team
from tests.conftest import call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import file_at, head, new_repo, write_requests

ORG = "octo-org"


def new_pull(forge, files: dict | None = None, branches: dict | None = None) -> tuple[str, Issue]:
    """A fresh repository in the demo organisation with an open PR from `feature` by bob."""
    branches = branches or {"feature": {"feature.txt": "new\n"}}
    repo = new_repo(forge, files, prefix=ORG, branches=branches)
    owner, name = repo.split("/")
    record = forge.state.repo(owner, name)
    forge.state.ensure_user("bob")
    issue = create_pull(forge.state, record, "bob", "A change", "feature", "main")
    return repo, issue


def pull_of(forge, repo: str, number: int):
    owner, name = repo.split("/")
    pull = get_pull(forge.state.repo(owner, name), number).pull
    assert pull is not None
    return pull


def check_contract(forge, part: str) -> None:
    # request-reviewers documents its 422 without a body, though GitHub sends its usual
    # validation error there (as the forge does): errors are left out of this check.
    records = [r for r in forge.responses() if part in r["path"] and r["status"] < 400]
    assert records, f"no {part} requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


# --- requested reviewers -------------------------------------------------------------------


async def test_request_and_remove_reviewers(make_runtime, forge):
    repo, issue = new_pull(forge)
    team = add_team(forge.state, ORG, f"Reviewers {issue.id}", {"alice": "member"})
    pr = f"{repo}#{issue.number}"
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, asked = await call_tool(
            client, "request_pr_reviewers", {"pr": pr, "users": ["alice"], "teams": [team.slug]}
        )
        after_ask = (
            list(pull_of(forge, repo, issue.number).requested_reviewers),
            list(pull_of(forge, repo, issue.number).requested_teams),
        )
        _, removed = await call_tool(
            client, "request_pr_reviewers", {"pr": pr, "users": ["alice"], "remove": True}
        )
        _, author = await call_tool(client, "request_pr_reviewers", {"pr": pr, "users": ["bob"]})
        _, nobody = await call_tool(client, "request_pr_reviewers", {"pr": pr})
    assert after_ask == (["alice"], [team.slug])
    assert asked == {"pr": issue.number, "users": ["alice"], "teams": [team.slug]}
    pull = pull_of(forge, repo, issue.number)
    assert (pull.requested_reviewers, pull.requested_teams) == ([], [team.slug])
    assert removed["users"] == [] and removed["teams"] == [team.slug]
    assert error_code(author) == "unprocessable" and "author" in author["error"]["message"]
    assert error_code(nobody) == "invalid_input"
    check_contract(forge, "/requested_reviewers")


async def test_review_requests_need_a_human(make_runtime, forge):
    repo, issue = new_pull(forge)
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client, "request_pr_reviewers", {"pr": f"{repo}#{issue.number}", "users": ["alice"]}
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert pull_of(forge, repo, issue.number).requested_reviewers == []


# --- the draft state -----------------------------------------------------------------------


async def test_draft_and_ready_for_review(make_runtime, forge):
    repo, issue = new_pull(forge)
    pr = f"{repo}#{issue.number}"
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, drafted = await call_tool(client, "set_pr_draft", {"pr": pr, "draft": True})
        was_draft = pull_of(forge, repo, issue.number).draft
        _, again = await call_tool(client, "set_pr_draft", {"pr": pr, "draft": True})
        _, ready = await call_tool(client, "set_pr_draft", {"pr": pr, "draft": False})
    assert was_draft is True
    assert pull_of(forge, repo, issue.number).draft is False
    assert drafted == {"pr": issue.number, "draft": True, "changed": True}
    assert again == {"pr": issue.number, "draft": True, "changed": False}
    assert ready == {"pr": issue.number, "draft": False, "changed": True}
    check_contract(forge, f"/pulls/{issue.number}")


async def test_draft_state_needs_a_human(make_runtime, forge):
    repo, issue = new_pull(forge)
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client, "set_pr_draft", {"pr": f"{repo}#{issue.number}", "draft": True}
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert pull_of(forge, repo, issue.number).draft is False


# --- updating the branch from its base ------------------------------------------------------


def advance(forge, repo: str, branch: str, path: str, text: str) -> str:
    """Commit `path` on `branch` in the forge's git (someone else pushing)."""
    owner, name = repo.split("/")
    git = forge.state.repo(owner, name).git
    tip = git.read_ref(f"refs/heads/{branch}")
    sig = web_flow_signature()
    tree = git.build_tree(
        git.read_commit(tip).tree, [TreeChange(path, "100644", git.write_blob(text.encode()))]
    )
    sha = git.create_commit(tree, [tip], f"change {path}\n", sig, sig)
    assert git.update_ref(f"refs/heads/{branch}", sha, tip)
    return sha


def parents(forge, repo: str, sha: str) -> list[str]:
    owner, name = repo.split("/")
    return list(forge.state.repo(owner, name).git.read_commit(sha).parents)


async def test_update_branch_merges_the_base_into_the_head(make_runtime, forge):
    repo, issue = new_pull(forge)
    base = advance(forge, repo, "main", "base.txt", "from main\n")
    old = head(forge, repo, "feature")
    pr = f"{repo}#{issue.number}"
    forge.clear_responses()
    async with mcp_client(make_runtime()) as client:
        _, stale = await call_tool(
            client, "update_pr_branch", {"pr": pr, "expected_head_sha": "0" * 40}
        )
        assert head(forge, repo, "feature") == old
        _, updated = await call_tool(
            client, "update_pr_branch", {"pr": pr, "expected_head_sha": old}
        )
        _, again = await call_tool(client, "update_pr_branch", {"pr": pr})
    new = head(forge, repo, "feature")
    assert parents(forge, repo, new) == [old, base]
    assert file_at(forge, repo, new, "base.txt") == b"from main\n"
    assert updated["head_sha"] == new and updated["from_sha"] == old and updated["updated"]
    assert error_code(stale) == "unprocessable"
    assert error_code(again) == "unprocessable" and "no new commits" in again["error"]["message"]
    assert head(forge, repo, "feature") == new
    check_contract(forge, "/update-branch")


async def test_update_branch_of_a_protected_head_needs_a_human(make_runtime, forge):
    repo, issue = new_pull(forge)
    advance(forge, repo, "main", "base.txt", "from main\n")
    old = head(forge, repo, "feature")
    async with mcp_client(make_runtime(protected_branches="feature")) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "update_pr_branch", {"pr": f"{repo}#{issue.number}"})
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert head(forge, repo, "feature") == old


# --- pending reviews -----------------------------------------------------------------------


def reviews_of(forge, repo: str, number: int) -> dict:
    owner, name = repo.split("/")
    data = collab(forge.state.repo(owner, name))
    return {
        r.id: (r.state, [c for c in data.review_comments.values() if c.review_id == r.id])
        for r in data.reviews.values()
        if r.number == number
    }


async def test_pending_review_start_submit_delete(make_runtime, forge):
    repo, issue = new_pull(
        forge,
        files={"app.txt": "a\nb\nc\nd\n"},
        branches={"feature": {"app.txt": "a\nB\nC\nd\n"}},
    )
    pr = f"{repo}#{issue.number}"
    lines = [
        {"path": "app.txt", "line": 2, "body": "why upper case?"},
        {"path": "app.txt", "start_line": 2, "line": 3, "side": "LEFT", "start_side": "LEFT",
         "body": "these two were fine"},
    ]  # fmt: skip
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, started = await call_tool(
            client, "pending_pr_review", {"pr": pr, "action": "start", "comments": lines}
        )
        more = [{"path": "app.txt", "start_line": 2, "line": 3, "body": "and these?"}]
        _, added = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "comment", "review_id": started["review_id"], "comments": more},
        )
        outside = [{"path": "app.txt", "line": 40, "body": "not in the diff"}]
        _, refused = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "comment", "review_id": started["review_id"], "comments": outside},
        )
        pending = reviews_of(forge, repo, issue.number)[started["review_id"]]
        _, no_id = await call_tool(client, "pending_pr_review", {"pr": pr, "action": "submit"})
        _, submitted = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "submit", "review_id": started["review_id"], "event": "APPROVE"},
        )
        _, second = await call_tool(
            client, "pending_pr_review", {"pr": pr, "action": "start", "comments": lines[:1]}
        )
        _, deleted = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "delete", "review_id": second["review_id"]},
        )
        _, late = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "delete", "review_id": started["review_id"]},
        )
    state, comments = pending
    assert state == "PENDING" and started["state"] == "PENDING" and started["comments"] == 2
    by_place = {(c.side, c.line): c for c in comments}
    assert len(comments) == 3 and added["comments"] == 1
    assert error_code(refused) == "unprocessable" and "diff" in refused["error"]["message"]
    assert by_place["RIGHT", 2].start_line is None
    assert (by_place["LEFT", 3].start_line, by_place["LEFT", 3].start_side) == (2, "LEFT")
    assert (by_place["RIGHT", 3].start_line, by_place["RIGHT", 3].body) == (2, "and these?")
    after = reviews_of(forge, repo, issue.number)
    assert after[started["review_id"]][0] == "APPROVED" and submitted["state"] == "APPROVED"
    assert second["review_id"] not in after and deleted["state"] == "DELETED"
    assert error_code(no_id) == "invalid_input"
    assert error_code(late) == "unprocessable"
    check_contract(forge, "/reviews")


async def test_pending_review_needs_a_human(make_runtime, forge):
    repo, issue = new_pull(forge)
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client, "pending_pr_review", {"pr": f"{repo}#{issue.number}", "action": "start"}
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert reviews_of(forge, repo, issue.number) == {}


async def test_pending_review_takes_file_comments_and_finds_your_review_itself(make_runtime, forge):
    repo, issue = new_pull(
        forge,
        files={"app.txt": "a\nb\n", "notes.md": "one\n"},
        branches={"feature": {"app.txt": "a\nB\n", "notes.md": "one\ntwo\n"}},
    )
    pr = f"{repo}#{issue.number}"
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, nothing = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "comment", "comments": [{"path": "app.txt", "line": 2,
                                                           "body": "x"}]},
        )  # fmt: skip
        start = [
            {"path": "app.txt", "line": 2, "body": "why upper case?"},
            {"path": "notes.md", "subject_type": "FILE", "body": "the whole file: why?"},
        ]
        _, started = await call_tool(
            client, "pending_pr_review", {"pr": pr, "action": "start", "comments": start}
        )
        more = [{"path": "app.txt", "subject_type": "FILE", "body": "and this file?"}]
        # no review_id: the caller's pending review on the PR is found
        _, added = await call_tool(
            client, "pending_pr_review", {"pr": pr, "action": "comment", "comments": more}
        )
        _, line_missing = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "comment", "comments": [{"path": "app.txt", "body": "where?"}]},
        )
        _, file_with_line = await call_tool(
            client,
            "pending_pr_review",
            {"pr": pr, "action": "comment",
             "comments": [{"path": "app.txt", "subject_type": "FILE", "line": 1, "body": "?"}]},
        )  # fmt: skip
        _, submitted = await call_tool(
            client, "pending_pr_review", {"pr": pr, "action": "submit", "event": "COMMENT"}
        )
    assert error_code(nothing) == "not_found" and "action=start" in nothing["error"]["hint"]
    assert started["comments"] == 2 and added["review_id"] == started["review_id"]
    assert error_code(line_missing) == error_code(file_with_line) == "invalid_input"
    assert submitted["review_id"] == started["review_id"] and submitted["state"] == "COMMENTED"
    state, comments = reviews_of(forge, repo, issue.number)[started["review_id"]]
    assert state == "COMMENTED"
    by_body = {c.body: c for c in comments}
    assert set(by_body) == {"why upper case?", "the whole file: why?", "and this file?"}
    assert (by_body["why upper case?"].subject_type, by_body["why upper case?"].line) == (
        "line",
        2,
    )
    for body, path in (("the whole file: why?", "notes.md"), ("and this file?", "app.txt")):
        assert (by_body[body].subject_type, by_body[body].path) == ("file", path)
        assert by_body[body].line is None
    check_contract(forge, "/reviews")
