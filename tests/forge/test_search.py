"""Search over code (git grep), repositories and commit messages."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from sandbox_forge import Forge

from .worlds import World, make_world


@pytest.fixture(scope="module")
def world() -> Iterator[World]:
    with Forge(record_responses=True) as forge:
        built = make_world(forge)
        forge.seed_repo(
            "octo-org/tools",
            {
                "lib/needle.py": "# a needle here too\n",
                "lib/readme.md": "needle in docs\n",
                "web/needle.js": "const needle = 1;\n",
            },
            description="Organisation tooling",
        )
        # GitHub allows 10 code searches a minute; this module makes more.
        forge.set_rate_limit(remaining=1000, limit=1000, resource="code_search")
        yield built


@pytest.fixture
def api(world) -> Iterator:
    with world.client() as client:
        yield client


def paths(response) -> list[tuple[str, str]]:
    return [(i["repository"]["full_name"], i["path"]) for i in response.json()["items"]]


def test_code_search_across_readable_repositories(api):
    response = api.get("/search/code", params={"q": "needle"})
    assert response.json()["total_count"] == 4
    assert paths(response) == [
        ("octo-org/tools", "lib/needle.py"),
        ("octo-org/tools", "lib/readme.md"),
        ("octo-org/tools", "web/needle.js"),
        ("octocat/hello", "src/util/helpers.py"),
    ]
    item = response.json()["items"][0]
    assert len(item["sha"]) == 40 and item["name"] == "needle.py"
    assert response.json()["incomplete_results"] is False


def test_code_search_qualifiers(api):
    by_repo = api.get("/search/code", params={"q": "needle repo:octocat/hello"})
    assert paths(by_repo) == [("octocat/hello", "src/util/helpers.py")]
    by_path = api.get("/search/code", params={"q": "needle path:lib"})
    assert [p for _, p in paths(by_path)] == ["lib/needle.py", "lib/readme.md"]
    by_language = api.get("/search/code", params={"q": "needle language:python"})
    assert [p for _, p in paths(by_language)] == ["lib/needle.py", "src/util/helpers.py"]
    by_extension = api.get("/search/code", params={"q": "needle extension:js"})
    assert [p for _, p in paths(by_extension)] == ["web/needle.js"]
    phrase = api.get("/search/code", params={"q": '"needle in a haystack"'})
    assert paths(phrase) == [("octocat/hello", "src/util/helpers.py")]
    all_terms = api.get("/search/code", params={"q": "needle docs"})
    assert [p for _, p in paths(all_terms)] == ["lib/readme.md"]


def test_code_search_never_shows_unreadable_repositories(world):
    with world.client(world.limited_token) as client:
        found = client.get("/search/code", params={"q": "classified"}).json()
    assert found["total_count"] == 0
    with world.client() as client:
        found = client.get("/search/code", params={"q": "classified"}).json()
    assert [i["repository"]["full_name"] for i in found["items"]] == ["octocat/secret"]


def test_code_search_has_its_own_rate_limit(api):
    response = api.get("/search/code", params={"q": "needle"})
    assert response.headers["x-ratelimit-resource"] == "code_search"


def test_code_search_paginates(api):
    response = api.get("/search/code", params={"q": "needle", "per_page": 3})
    assert len(response.json()["items"]) == 3
    assert response.json()["total_count"] == 4
    assert 'rel="next"' in response.headers["link"]


def test_code_search_needs_a_query_and_a_user(world, api):
    empty = api.get("/search/code", params={"q": ""})
    assert empty.status_code == 422
    assert empty.json()["message"] == "Validation Failed"
    only_qualifiers = api.get("/search/code", params={"q": "repo:octocat/hello"})
    assert only_qualifiers.status_code == 422
    with world.client(anonymous=True) as anon:
        assert anon.get("/search/code", params={"q": "needle"}).status_code == 401


def test_repository_search(api):
    found = api.get("/search/repositories", params={"q": "greeting"}).json()
    assert [r["full_name"] for r in found["items"]] == ["octocat/hello"]
    by_owner = api.get("/search/repositories", params={"q": "org:octo-org"}).json()
    assert [r["full_name"] for r in by_owner["items"]] == ["octo-org/tools"]
    private = api.get("/search/repositories", params={"q": "is:private"}).json()
    assert [r["full_name"] for r in private["items"]] == ["octocat/secret"]
    assert found["items"][0]["score"] == 1.0


def test_commit_search_greps_messages(api):
    found = api.get("/search/commits", params={"q": "changes repo:octocat/hello"}).json()
    assert [i["commit"]["message"] for i in found["items"]] == []  # only on the default branch
    initial = api.get("/search/commits", params={"q": "initial"}).json()
    assert {i["repository"]["full_name"] for i in initial["items"]} == {
        "octocat/hello",
        "octocat/secret",
        "octo-org/tools",
    }
    assert all(i["commit"]["message"] == "Initial commit" for i in initial["items"])
