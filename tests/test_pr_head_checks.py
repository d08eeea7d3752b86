"""A PR overview reads CI from the PR's head commit: the forge's GraphQL `commits(last: 1)`
is the newest commit (GitHub's order, oldest first), and an answer naming another commit
is refused loudly instead of shown as the PR's checks."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx

from github_mcp.github.graphql import PULL_OVERVIEW
from sandbox_forge.admin.seed_collab import add_check_run, add_status
from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_issues_prs import open_pr
from tests.test_tools_write import head, new_repo

COMMITS = """query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) { pullRequest(number: $number) {
    headRefOid
    last: commits(last: 1) { nodes { commit { oid } } }
    all: commits(first: 10) { nodes { commit { oid } } }
  } } }"""


def graphql(forge, query: str, variables: dict[str, Any]) -> dict[str, Any]:
    token = forge.create_token("octocat")
    response = httpx.post(
        f"{forge.base_url}/graphql",
        json={"query": query, "variables": variables},
        headers={"Authorization": f"Bearer {token}"},
    )
    assert response.status_code == 200, response.text
    return response.json()


async def two_commit_pr(client, forge, repo: str) -> tuple[int, str, str]:
    """A PR whose first commit has failing checks and whose head has passing ones."""
    pr = await open_pr(client, repo, "feat/two", [{"path": "a.txt", "content": "a\n"}])
    first = pr["head_sha"]
    is_error, committed = await call_tool(
        client,
        "commit_files",
        {
            "full_name": repo,
            "branch": "feat/two",
            "files": [{"path": "b.txt", "content": "b\n"}],
            "message": "second",
        },
    )
    assert not is_error, committed
    newest = head(forge, repo, "feat/two")
    assert newest != first
    add_check_run(forge, repo, first, "old-tests", conclusion="failure")
    add_check_run(forge, repo, newest, "tests", conclusion="success")
    add_check_run(forge, repo, newest, "lint", conclusion="success")
    add_status(forge, repo, newest, "success", context="ci/legacy")
    return pr["number"], first, newest


async def test_overview_reads_checks_of_the_head_commit(make_runtime, forge):
    repo = new_repo(forge, prefix="headchecks-org")
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        number, first, newest = await two_commit_pr(client, forge, repo)
        is_error, overview = await call_tool(client, "get_pr_overview", {"pr": f"{repo}#{number}"})
    owner, name = repo.split("/")
    found = graphql(forge, COMMITS, {"owner": owner, "name": name, "number": number})
    pull = found["data"]["repository"]["pullRequest"]
    assert pull["headRefOid"] == newest == head(forge, repo, "feat/two")
    assert [n["commit"]["oid"] for n in pull["last"]["nodes"]] == [newest]
    assert [n["commit"]["oid"] for n in pull["all"]["nodes"]] == [first, newest]
    assert not is_error, overview
    assert overview["head_sha"] == newest
    assert overview["checks"]["total"] == 3 and overview["checks"]["passed"] == 3
    assert overview["checks"]["failed"] == 0 and not overview["checks"].get("failing")


async def test_overview_refuses_checks_of_another_commit(make_runtime, forge):
    repo = new_repo(forge, prefix="headchecks-org")
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        number, first, _ = await two_commit_pr(client, forge, repo)
        owner, name = repo.split("/")
        variables = {"owner": owner, "name": name, "number": number, "files": 100}
        answer = graphql(forge, PULL_OVERVIEW, {**variables, "after": None, "contexts": 100})
        commit = answer["data"]["repository"]["pullRequest"]["commits"]["nodes"][0]["commit"]
        commit["oid"] = first  # an answer whose "last" commit is not the head
        forge.add_fault(path="^/graphql$", method="POST", status=200, body=answer, times=5)
        is_error, overview = await call_tool(client, "get_pr_overview", {"pr": f"{repo}#{number}"})
    assert is_error
    assert error_code(overview) == "upstream_error"
    assert first[:12] in overview["error"]["message"]
