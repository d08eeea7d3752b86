"""find_duplicate_issues through a real MCP client against the forge: similar open issues
are found by GitHub's issue search and ranked; closed issues, pull requests and the issue
itself are left out; text that looks like search qualifiers never reaches the query as one
(evidence from the forge's request log)."""

from __future__ import annotations

from urllib.parse import parse_qs

from sandbox_forge.admin.seed_collab import create_issue
from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_write import new_repo


def search_queries(forge) -> list[str]:
    return [
        parse_qs(e["query"])["q"][0]
        for e in forge.requests()
        if e["path"].endswith("/search/issues")
    ]


async def test_similar_open_issues_ranked_best_first(make_runtime, forge):
    repo = new_repo(forge, prefix="dupes-org")
    crash = create_issue(forge, repo, "Login page crashes on Safari", body="Since 2.3")["number"]
    loop = create_issue(forge, repo, "Safari login redirect loops")["number"]
    body_only = create_issue(forge, repo, "Sign-in trouble", body="on safari only")["number"]
    create_issue(forge, repo, "Add dark mode")
    closed = create_issue(forge, repo, "Login crashes on Safari 16", state="closed")["number"]
    async with mcp_client(make_runtime()) as client:
        _, by_number = await call_tool(
            client, "find_duplicate_issues", {"full_name": repo, "number": crash}
        )
        _, by_title = await call_tool(
            client,
            "find_duplicate_issues",
            {"full_name": repo, "title": "Crash at login in Safari", "limit": 2},
        )
        _, neither = await call_tool(client, "find_duplicate_issues", {"full_name": repo})
    numbers = [i["number"] for i in by_number["issues"]]
    assert numbers == [loop, body_only] and crash not in numbers and closed not in numbers
    assert by_number["keywords"][:4] == ["login", "page", "crashes", "safari"]
    assert by_number["issues"][0]["score"] > by_number["issues"][1]["score"] > 0
    assert [i["number"] for i in by_title["issues"]] == [crash, loop]
    assert error_code(neither) == "invalid_input"


async def test_qualifiers_in_the_text_stay_plain_words(make_runtime, forge):
    repo = new_repo(forge, prefix="dupes-org")
    private = new_repo(forge, prefix="dupes-private")
    create_issue(forge, private, "secret roadmap leak")
    create_issue(forge, repo, "Roadmap page is empty")
    hostile = f'repo:{private} is:closed "roadmap" OR secret NOT leak in:comments'
    forge.clear_requests()
    async with mcp_client(make_runtime()) as client:
        _, found = await call_tool(
            client, "find_duplicate_issues", {"full_name": repo, "title": hostile}
        )
    [query] = search_queries(forge)
    assert query.startswith(f"repo:{repo} is:issue is:open ")
    words = query.split()[3:]
    assert ":" not in "".join(words) and '"' not in query
    assert set(words) - {"OR"} <= set(found["keywords"]) and "NOT" not in words
    assert all(i["url"].split("/issues/")[0].endswith(repo) for i in found["issues"])
