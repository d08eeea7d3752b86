"""Copilot through a real MCP client against the forge: assigning the coding agent and
requesting Copilot's review are approved writes; where Copilot is not enabled the forge
refuses as GitHub does and the tool says what is needed. Evidence comes from the forge's
records: the issue's assignees, the agent sessions and suggestions it keeps, the PR's
requested reviewers, and the request log."""

from __future__ import annotations

from sandbox_forge.admin.seed_collab import create_issue
from sandbox_forge.stores import copilot
from sandbox_forge.stores.collab import collab
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_pull_reviews import new_pull, pull_of
from tests.test_tools_write import new_repo, write_requests


def copilot_repo(forge, enabled: bool = True) -> str:
    repo = new_repo(forge, prefix="copilot-org")
    if enabled:
        copilot.enable(forge.state, repo)
    return repo


def assignees(forge, repo: str, number: int) -> list[str]:
    owner, name = repo.split("/")
    record = forge.state.repo(owner, name)
    assert record is not None
    return list(collab(record).issues[number].assignees)


def sessions_for(forge, repo: str) -> list[dict]:
    return [s for s in copilot.store(forge.state).sessions if s["repo"] == repo]


async def test_assigning_copilot_needs_approval_then_starts_the_agent(make_runtime, forge):
    repo = copilot_repo(forge)
    number = create_issue(forge, repo, "Add a --verbose flag")["number"]
    args = {"full_name": repo, "number": number, "base_branch": "feature"}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "assign_copilot_to_issue", args)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    assert assignees(forge, repo, number) == [] and sessions_for(forge, repo) == []

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, assigned = await call_tool(
            client, "assign_copilot_to_issue", {**args, "instructions": "Keep it small."}
        )
    assert assigned["assignees"] == ["Copilot"] and assigned["suggested"] is False
    assert assignees(forge, repo, number) == ["Copilot"]
    (session,) = sessions_for(forge, repo)
    assert session["login"] == "Copilot" and session["target_repo"] == repo
    assert session["base_branch"] == "feature"
    assert session["custom_instructions"] == "Keep it small."
    # the session GitHub would start, simulated: a branch and a draft pull request by the bot
    record = forge.state.repo(*repo.split("/"))
    draft = collab(record).issues[session["pull_request"]]
    assert session["simulated"] is True and session["state"] == "in_progress"
    assert session["head_branch"] == draft.pull.head_ref == f"copilot/fix-{number}"
    assert draft.user == "Copilot" and draft.pull.draft is True
    assert draft.pull.base_ref == "feature" and draft.title == "[WIP] Add a --verbose flag"
    assert f"Fixes #{number}" in draft.body and "Simulated by the sandbox forge" in draft.body
    plan = record.git.read_commit(record.git.read_ref(f"refs/heads/{draft.pull.head_ref}"))
    assert plan.parents == (record.git.read_ref("refs/heads/feature"),)
    assert plan.message.startswith("Initial plan") and plan.author.name == "Copilot"
    records = [r for r in forge.responses() if "/assignees" in r["path"]]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_a_suggested_assignment_starts_nothing(make_runtime, forge):
    repo = copilot_repo(forge)
    number = create_issue(forge, repo, "Flaky test")["number"]
    args = {
        "full_name": repo,
        "number": number,
        "suggest": True,
        "rationale": "Small, well-scoped fix with a failing test.",
        "confidence": "high",
        "instructions": "ignored for a suggestion",
    }
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        _, suggested = await call_tool(client, "assign_copilot_to_issue", args)
        posted = [r for r in write_requests(forge) if r["path"].endswith("/assignees")]
    assert suggested["suggested"] is True and suggested["assignees"] == []
    assert assignees(forge, repo, number) == [] and sessions_for(forge, repo) == []
    kept = [s for s in copilot.store(forge.state).suggestions if s["repo"] == repo]
    assert [(s["login"], s["confidence"], s["rationale"]) for s in kept] == [
        ("Copilot", "high", "Small, well-scoped fix with a failing test.")
    ]
    assert len(posted) == 1
    (sent,) = [
        r["request_body"]
        for r in forge.responses()
        if r["method"] == "POST" and r["path"] == f"/repos/{repo}/issues/{number}/assignees"
    ]
    assert "agent_assignment" not in sent and sent["assignees"][0]["suggest"] is True


async def test_where_copilot_is_off_nothing_is_written_and_the_need_is_named(make_runtime, forge):
    repo = copilot_repo(forge, enabled=False)
    number = create_issue(forge, repo, "Anything")["number"]
    pr_repo, pull = new_pull(forge)  # octo-org, where Copilot is not enabled for it
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        _, assign = await call_tool(
            client, "assign_copilot_to_issue", {"full_name": repo, "number": number}
        )
        _, review = await call_tool(
            client, "request_copilot_review", {"full_name": pr_repo, "number": pull.number}
        )
        posted = [r for r in write_requests(forge) if r["path"].endswith("/assignees")]
    assert error_code(assign) == error_code(review) == "unprocessable"
    assert "Copilot plan" in assign["error"]["hint"] and "Copilot" in review["error"]["hint"]
    assert posted == [] and assignees(forge, repo, number) == []
    assert pull_of(forge, pr_repo, pull.number).requested_reviewers == []


async def test_requesting_copilot_review_needs_approval(make_runtime, forge):
    repo, pull = new_pull(forge)
    copilot.enable(forge.state, repo)
    args = {"pr": f"{repo}#{pull.number}"}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "request_copilot_review", args)
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed" and writes == []
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, requested = await call_tool(client, "request_copilot_review", args)
    assert requested["requested_reviewers"] == [copilot.REVIEWER]
    assert pull_of(forge, repo, pull.number).requested_reviewers == [copilot.REVIEWER]


async def test_hostile_arguments_and_the_allow_list(make_runtime, forge):
    repo = copilot_repo(forge)
    number = create_issue(forge, repo, "Target")["number"]
    base = {"full_name": repo, "number": number}
    hostile = [
        {**base, "base_branch": "../main"},
        {**base, "base_branch": "main\nHost: evil"},
        {**base, "confidence": "certain"},
        {**base, "rationale": "x" * 281},
        {**base, "instructions": "y" * 10_001},
        {"full_name": "../etc", "number": number},
    ]
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        answers = [(await call_tool(client, "assign_copilot_to_issue", a))[1] for a in hostile]
        _, missing_branch = await call_tool(
            client, "assign_copilot_to_issue", {**base, "base_branch": "no-such-branch"}
        )
    assert all(error_code(a) == "invalid_input" for a in answers), answers
    assert error_code(missing_branch) == "unprocessable"  # GitHub's 422, nothing assigned
    assert assignees(forge, repo, number) == [] and sessions_for(forge, repo) == []

    rt = make_runtime(auto_approve=True, repo_allowlist="someone/else")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, assign = await call_tool(client, "assign_copilot_to_issue", base)
        _, review = await call_tool(
            client, "request_copilot_review", {"full_name": DEMO_REPO, "number": 1}
        )
        touched = [
            r for r in settled_requests(forge) if repo in r["path"] or "demo-app" in r["path"]
        ]
    assert error_code(assign) == error_code(review) == "repo_not_allowed" and touched == []


def test_the_demo_repository_has_copilot_enabled(forge):
    owner, name = DEMO_REPO.split("/")
    demo = forge.state.repo(owner, name)
    assert demo is not None and copilot.enabled(forge.state, demo)
    assert copilot.assignable(forge.state, demo, "copilot-swe-agent[bot]") is not None
    assert forge.state.extensions["issue_meta_demo"]["copilot_enabled"] == [DEMO_REPO]
