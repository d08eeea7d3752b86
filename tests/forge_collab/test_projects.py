"""The forge's Projects (v2) over GraphQL, as GitHub answers them: who may read a private
organisation project, who may change it, REDACTED items, and GitHub's error types."""

from __future__ import annotations

import httpx2

from sandbox_forge.admin.seed import seed_demo
from sandbox_forge.stores import projects as store
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import now

from .conftest import graphql

LIST = """query($login: String!) { organization(login: $login) {
  projectsV2(first: 10) { totalCount nodes { id title } } } }"""
ITEMS = """query($login: String!) { organization(login: $login) { projectV2(number: 1) {
  items(first: 10) { nodes { id type content { ... on Issue { title } } } } } } }"""
ARCHIVE = """mutation($p: ID!, $i: ID!) { archiveProjectV2Item(input: {projectId: $p, itemId: $i}) {
  item { isArchived } } }"""


def _client(forge, login: str, **token) -> httpx2.Client:
    auth = {"Authorization": f"token {forge.create_token(login, **token)}"}
    return httpx2.Client(base_url=forge.base_url, headers=auth, timeout=10)


def test_org_members_read_and_admins_write_the_private_roadmap(forge):
    seed_demo(forge)
    roadmap = store.owned_by(forge.state, "octo-org")[0]
    item = roadmap.items[0]
    variables = {"p": roadmap.node_id, "i": item.node_id}
    with _client(forge, "bob", user_roles=True) as bob:
        # bob reads demo-app but is no member of octo-org: the private project is hidden
        assert graphql(bob, LIST, login="octo-org")["data"]["organization"]["projectsV2"] == {
            "totalCount": 0,
            "nodes": [],
        }
        refused = graphql(bob, ARCHIVE, **variables)
        assert refused["errors"][0]["type"] == "NOT_FOUND"
    with _client(forge, "alice", user_roles=True, access="read") as reader:
        assert (
            graphql(reader, LIST, login="octo-org")["data"]["organization"]["projectsV2"][
                "totalCount"
            ]
            == 1
        )
        forbidden = graphql(reader, ARCHIVE, **variables)
        assert forbidden["errors"][0]["type"] == "FORBIDDEN"
    assert not item.archived
    with _client(forge, "alice", user_roles=True) as alice:
        done = graphql(alice, ARCHIVE, **variables)
    assert done["data"]["archiveProjectV2Item"]["item"] == {"isArchived": True}
    assert item.archived


def test_items_the_caller_cannot_read_are_redacted(forge):
    seed_demo(forge)
    forge.seed_repo("elsewhere/hidden", {"README.md": "x\n"}, private=True)
    hidden = forge.state.repo("elsewhere", "hidden")
    record = Issue(
        hidden.take_number(), forge.state.next_id(), "private plan", "alice", now(), now()
    )
    collab(hidden).issues[record.number] = record
    roadmap = store.owned_by(forge.state, "octo-org")[0]
    store.add_item(forge.state, roadmap, hidden.id, record.id)
    forge.add_org_member("octo-org", "bob", "member")
    with _client(forge, "bob", user_roles=True) as bob:
        nodes = graphql(bob, ITEMS, login="octo-org")["data"]["organization"]["projectV2"]["items"][
            "nodes"
        ]
    assert nodes[-1]["type"] == "REDACTED" and nodes[-1]["content"] is None
    assert "private plan" not in str(nodes)


def test_errors_carry_githubs_types(forge):
    seed_demo(forge)
    with _client(forge, "octocat") as api:
        no_org = graphql(api, LIST, login="nobody-here")
        no_project = graphql(
            api, 'query { organization(login: "octo-org") { projectV2(number: 99) { id } } }'
        )
    assert no_org["errors"][0]["type"] == "NOT_FOUND"
    assert "Could not resolve to an Organization" in no_org["errors"][0]["message"]
    assert no_project["errors"][0]["type"] == "NOT_FOUND"
