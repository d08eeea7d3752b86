"""completion/complete through a real MCP client: owners, repositories, branches, open
pull requests and paths, inside the allow-list, from cached lookups."""

from __future__ import annotations

import mcp_types
import pytest

from github_mcp.catalog.resources import BLOB_TEMPLATE
from tests.conftest import mcp_client, requests_matching

REPO = "octo-org/complete-me"
TEMPLATE = mcp_types.ResourceTemplateReference(type="ref/resource", uri=BLOB_TEMPLATE)
FIX_CI = mcp_types.PromptReference(type="ref/prompt", name="fix_failing_ci")
SHIP = mcp_types.PromptReference(type="ref/prompt", name="ship_change")


@pytest.fixture(scope="module")
def repo(forge) -> str:
    files = {"README.md": "# c\n", "src/app.py": "x = 1\n", "src/lib/util.py": "y = 2\n"}
    forge.seed_repo(REPO, files, branches={"feature/one": files, "fix-two": files})
    return REPO


def _open_pr(forge, forge_token) -> int:
    import httpx2 as httpx

    answer = httpx.post(
        f"{forge.base_url}/repos/{REPO}/pulls",
        headers={"Authorization": f"Bearer {forge_token}"},
        json={"title": "c", "head": "fix-two", "base": "main"},
    )
    assert answer.status_code == 201, answer.text
    return answer.json()["number"]


async def test_template_arguments_complete(repo, make_runtime):
    rt = make_runtime(repo_allowlist=f"{REPO},octo-org/demo-app")
    async with mcp_client(rt) as client:
        owners = await client.complete(TEMPLATE, {"name": "owner", "value": "oc"}, None)
        repos = await client.complete(
            TEMPLATE, {"name": "repo", "value": "comp"}, {"owner": "octo-org"}
        )
        refs = await client.complete(
            TEMPLATE, {"name": "ref", "value": "f"}, {"owner": "octo-org", "repo": "complete-me"}
        )
        top = await client.complete(
            TEMPLATE, {"name": "path", "value": ""}, {"owner": "octo-org", "repo": "complete-me"}
        )
        deeper = await client.complete(
            TEMPLATE,
            {"name": "path", "value": "src/"},
            {"owner": "octo-org", "repo": "complete-me", "ref": "feature/one"},
        )
    assert owners.values == ["octo-org"]
    assert repos.values == ["complete-me"]
    assert refs.values == ["feature/one", "fix-two"]
    assert top.values == ["README.md", "src/"]
    assert deeper.values == ["src/app.py", "src/lib/"]


async def test_pr_argument_completes_owner_repo_then_open_prs(
    repo, forge, forge_token, make_runtime
):
    number = _open_pr(forge, forge_token)
    rt = make_runtime(repo_allowlist=f"{REPO}")
    async with mcp_client(rt) as client:
        owner = await client.complete(FIX_CI, {"name": "pr", "value": "octo"}, None)
        repos = await client.complete(FIX_CI, {"name": "pr", "value": "octo-org/comp"}, None)
        prs = await client.complete(FIX_CI, {"name": "pr", "value": f"{REPO}#"}, None)
        names = await client.complete(SHIP, {"name": "full_name", "value": "octo-org/c"}, None)
    assert owner.values == ["octo-org/"]
    assert repos.values == [f"{REPO}#"]
    assert f"{REPO}#{number}" in prs.values
    assert names.values == [REPO]


async def test_nothing_outside_the_allow_list_and_lookups_are_cached(repo, forge, make_runtime):
    rt = make_runtime(repo_allowlist="octo-org/demo-app")
    async with mcp_client(rt) as client:
        denied = await client.complete(
            TEMPLATE, {"name": "ref", "value": ""}, {"owner": "octo-org", "repo": "complete-me"}
        )
        prs = await client.complete(FIX_CI, {"name": "pr", "value": f"{REPO}#"}, None)
        names = await client.complete(SHIP, {"name": "full_name", "value": ""}, None)
    assert denied.values == [] and prs.values == []
    assert names.values == ["octo-org/demo-app"]

    rt = make_runtime(repo_allowlist=REPO)
    forge.clear_requests()
    async with mcp_client(rt) as client:
        for _ in range(5):
            await client.complete(
                TEMPLATE,
                {"name": "path", "value": "src/"},
                {"owner": "octo-org", "repo": "complete-me", "ref": "main"},
            )
    assert len(requests_matching(forge, "GET", "/git/trees/")) == 1


async def test_a_completion_past_its_budget_answers_with_nothing(repo, make_runtime, forge):
    """GitHub slower than the budget: an empty answer, not a wait (the lookup's latency is
    the forge's, ten times the budget, so no machine is fast enough to beat it)."""
    rt = make_runtime(repo_allowlist=REPO, completion_budget_seconds=0.2)
    forge.set_latency(2000)
    try:
        async with mcp_client(rt) as client:
            owners = await client.complete(TEMPLATE, {"name": "owner", "value": "oc"}, None)
    finally:
        forge.set_latency(0)
    assert owners.values == []
