"""The search kinds through a real MCP client against the forge: GitHub's qualifiers, pages
(next_cursor walks every hit once), the rate-limit state when little is left, and
repo:/user:/org: qualifiers outside the allow-list refused before any search request."""

from __future__ import annotations

from sandbox_forge.stores.collab import collab
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client


def demo_numbers(forge, pulls: bool, state: str | None = None) -> set[int]:
    owner, name = DEMO_REPO.split("/")
    issues = collab(forge.state.repo(owner, name)).issues.values()
    return {
        i.number
        for i in issues
        if (i.pull is not None) == pulls and (state is None or i.state == state)
    }


async def walk(client, request: dict) -> tuple[list[str], int]:
    seen: list[str] = []
    cursor, pages = None, 0
    while pages < 30:
        _, page = await call_tool(
            client, "search", request | ({"cursor": cursor} if cursor else {})
        )
        seen += [hit["id"] for hit in page["results"]]
        pages += 1
        cursor = page.get("next_cursor")
        if not cursor:
            return seen, pages
    raise AssertionError("paging did not end")


async def test_pages_walk_every_hit_once(make_runtime, forge):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        pulls, pages = await walk(
            client, {"query": "is:pr", "kind": "pulls", "full_name": DEMO_REPO, "limit": 1}
        )
        closed, _ = await walk(
            client,
            {"query": "state:closed", "kind": "issues", "full_name": DEMO_REPO, "limit": 2},
        )
    numbers = [int(hit.rsplit("#", 1)[1]) for hit in pulls]
    assert len(numbers) == len(set(numbers)) == pages > 1
    assert set(numbers) == demo_numbers(forge, pulls=True)
    assert {int(hit.rsplit("#", 1)[1]) for hit in closed} == demo_numbers(
        forge, pulls=False, state="closed"
    )


async def test_rate_limit_state_only_when_low(make_runtime, forge):
    rt = make_runtime()
    try:
        async with mcp_client(rt) as client:
            forge.set_rate_limit(remaining=30, resource="search")
            _, plenty = await call_tool(
                client, "search", {"query": "is:issue", "kind": "issues", "full_name": DEMO_REPO}
            )
            forge.set_rate_limit(remaining=3, resource="search")
            _, low = await call_tool(
                client, "search", {"query": "is:issue", "kind": "issues", "full_name": DEMO_REPO}
            )
            _, people = await call_tool(client, "search_users", {"query": "alice"})
    finally:
        forge.set_rate_limit(remaining=30, resource="search")
    assert "rate_limit" not in plenty
    assert low["rate_limit"]["resource"] == "search"
    assert low["rate_limit"]["remaining"] == 2 and low["rate_limit"]["limit"] == 30
    assert low["results"]  # the answer still comes
    assert people["rate_limit"]["remaining"] == 1 and people["accounts"]


async def test_scope_qualifiers_outside_the_allow_list_are_refused(make_runtime, forge):
    rt = make_runtime(repo_allowlist=DEMO_REPO)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        refused = [
            await call_tool(client, "search", {"query": f"bug {qualifier}", "kind": kind})
            for qualifier in ("repo:octo-org/private-notes", "user:octocat", "org:octo-org")
            for kind in ("code", "issues", "pulls", "repos", "commits")
        ]
        searched = [
            r for r in forge.requests() if r["path"].startswith(("/search", "/api/v3/search"))
        ]
        _, allowed = await call_tool(
            client, "search", {"query": f"is:pr repo:{DEMO_REPO}", "kind": "pulls"}
        )
    assert {error_code(payload) for _, payload in refused} == {"repo_not_allowed"}
    assert searched == []
    assert allowed["results"] and allowed["total"] == len(demo_numbers(forge, pulls=True))
