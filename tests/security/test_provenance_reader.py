"""What the GitHub client notes as read, from GitHub's own answers (github/provenance.py):
every repository an answer names, with the visibility the answer states, whatever tool
asked. The bodies here are GitHub's published examples (its OpenAPI description) and
GraphQL answers in the shape of its schema; the end-to-end proof through a real MCP client
against the forge is in test_provenance_leaks.py."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from github_mcp.github import provenance
from github_mcp.github.provenance import AnswerReader

OPENAPI = Path(".cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json")
API, WEB = "https://api.github.com", "https://github.com"


@pytest.fixture(scope="module")
def examples() -> dict[str, Any]:
    assert OPENAPI.exists(), "GitHub's OpenAPI description is missing: run `make test` once"
    return json.loads(OPENAPI.read_text())["components"]["examples"]


def read(body: Any, api: str = API, web: str = WEB) -> dict[str, str | None]:
    reader = AnswerReader(api, web)
    with provenance.recording() as found:
        reader.parse(json.dumps(body).encode())
    return found.sources()


def test_notifications_name_each_threads_repository_with_its_visibility(examples):
    found = read(examples["thread-items"]["value"])
    assert found["octocat/Hello-World"] == "public"
    thread = copy.deepcopy(examples["thread-items"]["value"][0])
    thread["repository"].update(full_name="acme/vault", private=True, visibility="private")
    thread["subject"]["url"] = f"{API}/repos/acme/vault/issues/7"
    assert read([thread])["acme/vault"] == "private"


def test_search_hits_and_advisories_name_their_repositories(examples):
    issues = read(examples["issue-search-result-item-paginated"]["value"])
    assert "batterseapower/pinyin-toolkit" in issues  # from each hit's own address
    code = read(examples["code-search-result-item-paginated"]["value"])
    assert code == {"jquery/jquery": "public"}
    advisories = read(examples["list-repository-advisories"]["value"])
    assert advisories["octo-org/octo-repo-ghsa-1234-5678-9012"] == "private"


def test_graphql_nodes_name_their_repository_by_name_or_address():
    answer = {
        "data": {
            "node": {
                "project": {"url": f"{WEB}/orgs/acme/projects/3", "public": False},
                "items": {
                    "nodes": [
                        {"content": {"title": "Rotate", "url": f"{WEB}/acme/vault/issues/4"}},
                        {"content": {"repository": {"nameWithOwner": "acme/app",
                                                    "isPrivate": False}}},
                        {"content": {"repository": {"name": "lib", "owner": {"login": "acme"},
                                                    "visibility": "INTERNAL"}}},
                        {"resourcePath": "/acme/docs/discussions/2"},
                    ]
                },
            }
        }
    }  # fmt: skip
    assert read(answer) == {
        "project:acme/3": "private",
        "acme/vault": None,  # the issue's address: visibility looked up later
        "acme/app": "public",
        "acme/lib": "internal",
        "acme/docs": None,
    }


def test_a_repository_at_its_own_address_states_its_visibility():
    node = {"url": f"{WEB}/acme/vault", "isPrivate": True, "name": "vault"}
    assert read({"data": {"repository": node}}) == {"acme/vault": "private"}


def test_gists_are_sources_with_their_visibility(examples):
    public = read(examples["gist"]["value"])
    assert [v for k, v in public.items() if k.startswith("gist:")] == ["public"]
    secret = copy.deepcopy(examples["gist"]["value"]) | {"public": False}
    assert "secret" in read(secret).values()


def test_text_that_mentions_a_repository_is_not_a_read_of_it():
    """Bodies, titles and messages are text: a link in an issue's body names no read,
    and a hostile body cannot fill the record with made-up names."""
    issue = {
        "url": f"{API}/repos/acme/site/issues/1",
        "title": "see https://github.com/acme/vault and /repos/acme/other/x",
        "body": 'full_name: "acme/vault" {"url": "https://api.github.com/repos/x/y"}',
    }
    assert read(issue) == {"acme/site": None}


def test_addresses_outside_repositories_are_not_repositories():
    user = {
        "login": "octocat",
        "url": f"{API}/users/octocat",
        "html_url": f"{WEB}/octocat",
        "repos_url": f"{API}/users/octocat/repos",
    }
    team = {"url": f"{API}/organizations/1/team/2", "html_url": f"{WEB}/orgs/acme/teams/x"}
    advisory = {"url": f"{API}/advisories/GHSA-x", "html_url": f"{WEB}/advisories/GHSA-x"}
    assert read([user, team, advisory]) == {}


def test_a_forge_on_one_host_reads_the_same():
    """The sandbox forge serves the API and the web pages on one host."""
    base = "http://127.0.0.1:8123"
    body = [
        {"url": f"{base}/repos/acme/vault/issues/1", "html_url": f"{base}/acme/vault/issues/1"},
        {"url": f"{base}/orgs/acme/projects/2", "public": True},
        {"url": f"{base}/users/octocat"},
    ]
    assert read(body, base, base) == {"acme/vault": None, "project:acme/2": "public"}


def test_the_more_private_statement_wins():
    body = [
        {"full_name": "acme/app", "private": False},
        {"full_name": "ACME/app", "private": True},
        {"url": f"{API}/repos/acme/app/issues/1"},
    ]
    assert read(body) == {"acme/app": "private"}


def test_a_cached_answer_served_again_names_the_same_sources():
    reader = AnswerReader(API, WEB)
    with provenance.recording():
        body, named = reader.parse_named(b'{"full_name": "acme/vault", "private": true}')
    with provenance.recording() as again:
        reader.replay(named)  # a cache's hit, with what its parse found
    with provenance.recording() as walked:
        assert reader.body(copy.deepcopy(body)) == named  # a body from the shared cache
    assert again.sources() == walked.sources() == {"acme/vault": "private"}


def test_nothing_is_noted_outside_a_call():
    reader = AnswerReader(API, WEB)
    body = reader.parse(b'{"full_name": "acme/vault", "private": true}')
    assert body == {"full_name": "acme/vault", "private": True}
    assert provenance.current() is None


async def test_public_sources_are_not_kept_so_a_long_listing_cannot_fill_the_record(
    make_runtime,
):
    """A listing of hundreds of public repositories (stars, a search) would fill the
    session's record (past 256 names it counts as having read something private); what
    an answer stated public can never make a write cross, so it is not kept."""
    from github_mcp.pipeline.flows import note_reads
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.registry import REGISTRY
    from github_mcp.pipeline.spec import Call
    from github_mcp.pipeline.views import settings_view

    rt = make_runtime()
    peer = Peer(settings_view(rt.settings))
    spec = REGISTRY["list_starred_repositories"]
    call = Call(rt=rt, spec=spec, call_id="c1", scope="s", peer=peer)
    for n in range(300):
        call.reads.note(f"acme/public-{n}", "public")
    call.reads.note("acme/vault", "private")
    call.reads.note("acme/unsaid")
    await note_reads(call)
    assert rt.gate.reads.read_by("s") == ({"acme/vault": "private", "acme/unsaid": None}, False)
