"""Someone else's approval cannot be used, on any replica: two server processes sharing a
real redis-server, two bearer principals (A and B), the stateless HTTP transport (a call
lands on either replica), headless Chromium as each human.

- B opening A's pending approval link, on the other replica, is refused (403) and decides
  nothing; A's request stays open for A.
- Once A approved one write, B's identical call, on either replica, does not take A's
  one-time grant: it is refused and nothing is written; A's own call then passes exactly
  once, and a second identical call is refused.
- With sessions (a replica holds each), an approval window A's human granted for one
  session lets that session's writes through and no one else's: not B's, not A's other
  session, on either replica.
- A project read on one replica (it names no repository) gates a public write on the
  other: the record is kept from GitHub's answer, in Redis.

Evidence: the forge's branch heads and objects, never only the servers' answers."""

from __future__ import annotations

from typing import Any

import httpx2 as httpx
import pytest

from tests.approvals.conftest import branch_head, commit_parents, visit_approval_page
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import traversable
from tests.replicas.cluster import Cluster
from tests.security.leak_scene import make_scene, published, writes_to

TOKEN_A = "replica-owner-alpha-0123456789"
TOKEN_B = "replica-owner-bravo-0123456789"
# the project reader: its record holds a private read from then on, so no other test's
# principal is it (the stateless tests share a cluster, in whatever order they run)
TOKEN_C = "replica-owner-charlie-012345678"


def _cluster(forge: Any, forge_token: str, tmp_path: Any, stateless: bool) -> Cluster:
    return Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=stateless,
        workspace_dir=traversable(tmp_path),
        extra_env={
            "GITHUB_MCP_AUTH_TOKENS": f"{TOKEN_A},{TOKEN_B},{TOKEN_C}",
            "GITHUB_MCP_APPROVAL_MODE": "auto",
        },
    )


@pytest.fixture(scope="module")
def two_replicas(forge, forge_token, tmp_path_factory):
    """Shared by the stateless tests: each works in repositories of its own, and only the
    project test's reader (TOKEN_C) ever reads anything private."""
    cluster = _cluster(forge, forge_token, tmp_path_factory.mktemp("stateless"), stateless=True)
    yield cluster
    cluster.close()


@pytest.fixture
def two_session_replicas(forge, forge_token, tmp_path):
    cluster = _cluster(forge, forge_token, tmp_path, stateless=False)
    yield cluster
    cluster.close()


def _client(url: str, token: str, mode: str = "auto") -> Any:
    """A client of one replica; `legacy`: the handshake-era protocol, whose sessions can
    hold an approval window (the current protocol has no session)."""
    from fastmcp.client.transports import StreamableHttpTransport

    from tests.conftest import ListingClient  # lists first, as a 2026-07-28 client does

    transport = StreamableHttpTransport(url + "/mcp", headers={"Authorization": f"Bearer {token}"})
    return ListingClient(transport, timeout=120, mode=mode)


async def _call(
    url: str, token: str, tool: str, args: dict[str, Any], mode: str = "auto"
) -> tuple[bool, Any]:
    async with _client(url, token, mode) as client:
        return await _in(client, tool, args)


async def _in(client: Any, tool: str, args: dict[str, Any]) -> tuple[bool, Any]:
    result = await client.call_tool(tool, args, raise_on_error=False)
    return result.is_error, result.structured_content


def _moved_to(link: str, replica_url: str) -> str:
    """The same approval link, served by another replica."""
    return replica_url + link[link.index("/approvals/") :]


async def test_another_principal_cannot_decide_or_take_an_approval(two_replicas, forge):
    repo = f"octo-org/owned-{two_replicas.replicas[0].port}"
    forge.seed_repo(repo, {"README.md": "# demo\nline two\n"})
    before = branch_head(forge, repo)
    one, two = (r.url for r in two_replicas.replicas)
    write = commit_args(repo)

    failed, refused = await _call(one, TOKEN_A, "commit_files", write)
    assert failed and refused["error"]["code"] == "write_not_allowed", refused
    link = refused["error"]["approval_url"]

    # B opens A's link on the other replica: refused, nothing decided
    intruder = await visit_approval_page(_moved_to(link, two), "approve", token=TOKEN_B)
    assert intruder.status == 403 and intruder.outcome is None
    page_url, _, fragment = _moved_to(link, two).partition("#")
    forged = httpx.post(
        page_url, data={"key": fragment.split("key=", 1)[1], "csrf": "x", "choice": "approve"},
        headers={"Authorization": f"Bearer {TOKEN_B}"},
    )  # fmt: skip
    assert forged.status_code == 403
    failed, still = await _call(one, TOKEN_A, "commit_files", write)
    assert failed and still["error"]["code"] == "write_not_allowed", still
    assert branch_head(forge, repo) == before

    # A approves on replica two; B's identical call, on either replica, cannot take it
    owner = await visit_approval_page(_moved_to(link, two), "approve", token=TOKEN_A)
    assert owner.outcome == "approved"
    for replica in (one, two):
        failed, theirs = await _call(replica, TOKEN_B, "commit_files", write)
        assert failed and theirs["error"]["code"] == "write_not_allowed", theirs
    assert branch_head(forge, repo) == before

    # A's own call passes, once, on either replica
    failed, done = await _call(two, TOKEN_A, "commit_files", write)
    assert not failed, done
    after = branch_head(forge, repo)
    assert commit_parents(forge, repo, after) == [before]
    failed, again = await _call(one, TOKEN_A, "commit_files", write)
    assert failed and again["error"]["code"] == "write_not_allowed", again
    assert branch_head(forge, repo) == after


async def test_a_window_granted_for_one_session_opens_no_other(two_session_replicas, forge):
    repo = f"octo-org/windowed-{two_session_replicas.replicas[0].port}"
    forge.seed_repo(repo, {"README.md": "# demo\nline two\n"})
    one, two = (r.url for r in two_session_replicas.replicas)
    async with _client(one, TOKEN_A, "legacy") as session:
        failed, refused = await _in(session, "commit_files", commit_args(repo, "first\n"))
        assert failed and refused["error"]["code"] == "write_not_allowed", refused
        link = _moved_to(refused["error"]["approval_url"], two)
        window = await visit_approval_page(link, "approve-window", token=TOKEN_A)
        assert window.outcome == "approved_window", window
        before = branch_head(forge, repo)
        # neither B, on either replica, nor A's other session gets through the window
        for replica, token in ((one, TOKEN_B), (two, TOKEN_B), (two, TOKEN_A), (one, TOKEN_A)):
            args = commit_args(repo, "x\n")
            failed, other = await _call(replica, token, "commit_files", args, "legacy")
            assert failed and other["error"]["code"] == "write_not_allowed", (token, other)
        assert branch_head(forge, repo) == before
        # the session the window was granted for writes, twice, with no new click
        for text in ("second\n", "third\n"):
            failed, done = await _in(session, "commit_files", commit_args(repo, text))
            assert not failed, done
    head = branch_head(forge, repo)
    assert commit_parents(forge, repo, commit_parents(forge, repo, head)[0]) == [before]


async def test_a_project_read_on_one_replica_gates_a_public_write_on_the_other(two_replicas, forge):
    scene = make_scene(forge)
    one, two = (r.url for r in two_replicas.replicas)
    tool, args = scene.reads()["project_items"]
    failed, items = await _call(one, TOKEN_C, tool, args)
    assert not failed and scene.secret in str(items), items
    for name, leak in scene.leaks():
        failed, refused = await _call(two, TOKEN_C, name, leak)
        assert failed and refused["error"]["code"] == "write_not_allowed", (name, refused)
        assert scene.vault in refused["error"]["private_repos_read"], refused
    assert writes_to(forge, scene, scene.site) == []
    # B read nothing private: B's record is B's own, and B's work goes on
    branch = {"full_name": scene.site, "branch": "b-work"}
    failed, made = await _call(two, TOKEN_B, "create_branch", branch)
    assert not failed, made
    assert branch_head(forge, scene.site, "b-work") is not None
    assert published(forge, scene.secret) == []
