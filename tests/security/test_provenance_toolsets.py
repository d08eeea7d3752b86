"""Every toolset's reads are recorded from what GitHub returned, with no code in any tool:
one cross-repository read per toolset, checked against the session's read record (the
ledger, as get_server_config reports it).

"Cross-repository" here means that the repository GitHub's answer comes from is not the
one the arguments name. Most tools name a repository, so they are called with the *old*
name of a private repository that was renamed: GitHub (and the forge) answer from the new
name, which only the answer carries. Tools that name no repository read across
repositories by nature (a project's items, the inbox, an organisation's advisories, a
search, the stars, a gist). The table covers every toolset; a toolset added later fails
`test_the_table_covers_every_toolset` until it has a row.

How each row's source reaches the record:
- `answer`: a repository object, a GraphQL node or an address in the answer's body;
- `request`: the request the client sent (a REST path, GraphQL's owner and name): the
  answer's body names no repository (a list of users, of reactions);
- `arguments`: not a GitHub answer at all (a git clone): the repository the call names.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import pytest

from github_mcp.config import Toolset
from sandbox_forge.admin.seed_collab import add_workflow_run
from sandbox_forge.stores import discussions as discussion_store
from sandbox_forge.stores import gists as gist_store
from sandbox_forge.stores import notifications as inbox_store
from sandbox_forge.stores import projects as project_store
from sandbox_forge.stores import security, social
from sandbox_forge.stores.collab import collab
from tests.conftest import call_tool, mcp_client
from tests.security.leak_scene import ORG, api


@dataclass
class World:
    old: str  # the private repository's first name: what the calls name
    new: str  # its name now: what GitHub's answers carry
    issue: int
    pull: int
    run: int
    discussion: int
    project: int
    gist: str
    token: str  # a word only the issue's title holds (for the search)
    clone: str  # a private repository to clone (under its own name)


@dataclass
class Row:
    tool: str | None  # None: the toolset has no read tool
    args: dict[str, Any]
    expect: str | None  # the source the record must hold afterwards
    named_by: str  # answer | request | arguments | writes only | no repository content
    visibility: str | None = None  # as the answer states it, when it does


@pytest.fixture(scope="module")
def world(forge) -> World:
    n = uuid.uuid4().hex[:8]
    old, new = f"{ORG}/tbl-{n}", f"{ORG}/tbl-{n}-renamed"
    token = f"zq{n}"
    forge.seed_repo(
        old, {"README.md": "# private\nline two\n"}, private=True, branches={"topic": {}}
    )
    with api(forge) as client:
        issue = client.post(f"/repos/{old}/issues", json={"title": f"Plan {token}"}).json()
        client.post(f"/repos/{old}/labels", json={"name": "urgent", "color": "ff0000"})
        client.post(f"/repos/{old}/milestones", json={"title": "1.0"})
        client.post(f"/repos/{old}/releases", json={"tag_name": "v0.1", "name": "first"})
        client.put(
            f"/repos/{old}/contents/topic.txt",
            json={"message": "topic", "content": "dG9waWMK", "branch": "topic"},
        )
        pull = client.post(
            f"/repos/{old}/pulls", json={"title": "Topic", "head": "topic", "base": "main"}
        ).json()
    run = add_workflow_run(forge, old, "ci.yml", ref="main", conclusion="success")
    repo = forge.state.repo(*old.split("/"))
    category = discussion_store.add_category(forge.state, repo, "General")
    talk = discussion_store.add_discussion(
        forge.state, repo, category, "octocat", "Roadmap", "What next?"
    )
    forge.rename_repo(old, new.split("/")[1])
    with api(forge) as client:
        assert client.put(f"/user/starred/{new}").status_code == 204
    clone = f"{ORG}/tbl-{n}-clone"
    forge.seed_repo(clone, {"README.md": "# clone me\n"}, private=True)
    project = project_store.create_project(forge.state, ORG, f"Table {n}")
    project_store.add_item(forge.state, project, repo.id, collab(repo).issues[issue["number"]].id)
    inbox_store.add_thread(forge.state, "octocat", new, "Issue", "Plan", "mention", 1)
    security.add_advisory(
        forge.state,
        security.Advisory(
            ghsa_id=f"GHSA-{n[:4]}-{n[4:]}-tbl0", cve_id=None, summary="Table advisory",
            description="-", severity="low", ecosystem="pip", package="tbl",
            vulnerable_range="< 1", patched="1", repo=new.lower(),
        ),
    )  # fmt: skip
    gist = gist_store.create_gist(forge.state, "octocat", {"a.txt": "secret"}, None, False)
    assert new.lower() in social.stars(forge.state, "octocat")
    return World(
        old, new, issue["number"], pull["number"], run["id"], talk.number, project.number,
        gist.id, token, clone,
    )  # fmt: skip


def table(w: World) -> dict[str, Row]:
    old = {"full_name": w.old}
    return {
        "actions": Row("get_workflow_run_overview", old | {"run_id": w.run}, w.new, "answer"),
        "automation": Row(
            "check_merge_readiness", old | {"number": w.pull, "timeout_seconds": 0}, w.new, "answer"
        ),
        "blame": Row("get_file_blame", old | {"path": "README.md"}, w.old, "request"),
        "code_security": Row("list_repository_advisories", {"org": ORG}, w.new, "answer"),
        "discussions": Row("get_discussion", old | {"number": w.discussion}, w.new, "answer"),
        "files": Row("list_repository_tree", old, w.new, "answer"),
        "gists": Row("get_gist", {"gist_id": w.gist}, f"gist:{w.gist}", "answer", "secret"),
        "issue_planning": Row("list_milestones", old, w.new, "answer"),
        "issues": Row("get_issue", old | {"number": w.issue}, w.new, "answer"),
        "labels": Row("list_labels", old, w.new, "answer"),
        "meta": Row("get_me", {}, None, "no repository content"),
        "notifications": Row("list_notifications", {"include_read": True}, w.new, "answer"),
        "people": Row("list_repository_collaborators", old, w.old, "request"),
        "projects": Row("list_project_items", {"owner": ORG, "number": w.project}, w.new, "answer"),
        "pull_requests": Row("get_pr_overview", old | {"number": w.pull}, w.new, "answer"),
        "reactions": Row(
            "list_reactions", old | {"on": "issue", "subject_id": w.issue}, w.old, "request"
        ),
        "releases": Row("list_releases", old, w.new, "answer"),
        "repos": Row("get_repository", old, w.new, "answer", "private"),
        "search": Row("search", {"query": w.token, "kind": "issues"}, w.new, "answer"),
        "stars": Row("list_starred_repositories", {}, w.new, "answer", "private"),
        "workspace": Row(
            "ensure_workspace_clone",
            {"full_name": f"{w.new[:-8]}-clone"},
            f"{w.new[:-8]}-clone",
            "arguments",
        ),
        # toolsets of writes only: their answers pass the same client, so what a write's
        # answer names is recorded the same way
        "writes": Row(None, {}, None, "writes only"),
        "copilot": Row(None, {}, None, "writes only"),
        "repo_admin": Row(None, {}, None, "writes only"),
        "pull_request_reviews": Row(None, {}, None, "writes only"),
    }


def test_the_table_covers_every_toolset(world):
    assert set(table(world)) == {t.value for t in Toolset}


@pytest.mark.parametrize("toolset", [t.value for t in Toolset])
async def test_a_read_of_each_toolset_is_in_the_record(make_runtime, world, toolset):
    row = table(world)[toolset]
    if row.tool is None:
        from github_mcp.pipeline.registry import REGISTRY

        tools = [s for s in REGISTRY.values() if s.toolset == toolset]
        assert tools and all(s.write for s in tools), toolset
        return
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, answer = await call_tool(client, row.tool, row.args)
        assert not is_error, (toolset, answer)
        policy = (await call_tool(client, "get_server_config"))[1]["write_policy"]
    recorded = {name.lower() for name in policy["repos_read"]}
    if row.expect is None:
        assert recorded == set(), (toolset, recorded)
        return
    assert row.expect.lower() in recorded, (toolset, row.named_by, recorded)
    if row.visibility is not None:
        (sources,) = [rt.gate.reads.read_by(scope)[0] for scope in _scopes(rt)]
        stated = {k.lower(): v for k, v in sources.items()}
        assert stated[row.expect.lower()] == row.visibility, (toolset, stated)


def _scopes(rt: Any) -> list[str]:
    """The scopes the runtime's ledger holds (one session in these tests)."""
    return list(rt.gate.reads._records)
