"""What watching a workflow run counts as, with evidence from the forge: the first read of a
watched run is a read (a private repository's run read by principal A makes A's write to
a public repository cross-visibility, refused under `deny`; principal B, who watched
nothing, writes), and under GITHUB_MCP_AUTH=oauth the read and every poll carry the
signed-in user's token (the forge logs who asked)."""

from __future__ import annotations

import itertools
from typing import Any

import httpx2 as httpx
from fastmcp import Client as FastClient
from fastmcp.client.transports import StreamableHttpTransport

from sandbox_forge.admin.seed_collab import complete_workflow_run
from tests.approvals.conftest import TOKEN_A, TOKEN_B
from tests.approvals.conftest import approval_server as approval_server  # the HTTP server
from tests.approvals.conftest import oauth_server as oauth_server  # the OAuth-mode server
from tests.conftest import call_tool, error_code
from tests.listen_stream import HANG_S, RawListen, queued_run, run_gets, until, uri_of

_numbers = itertools.count(1)


async def test_watching_a_private_run_counts_as_reading_it(approval_server, forge):
    """Cross-visibility `deny`: principal A watches a private repository's run, then may
    not write to a public repository; principal B, who watched nothing, may."""
    n = next(_numbers)
    site, vault = f"octo-org/watch-site-{n}", f"octo-org/watch-vault-{n}"
    forge.seed_repo(site, {"README.md": "# site\n"})
    forge.seed_repo(vault, {"secrets.env": "KEY=1\n"}, private=True)
    run_id = queued_run(forge, vault)
    with approval_server(cross_visibility="deny", watch_interval_seconds=0.5) as server:
        stream = RawListen(server.url, 9, [uri_of(vault, run_id)], token=TOKEN_A)
        try:
            await until(stream.acknowledged, "the ack")
            for token, branch in ((TOKEN_A, "a-leak"), (TOKEN_B, "b-work")):
                transport = StreamableHttpTransport(server.url + "/mcp", auth=token)
                async with FastClient(transport, timeout=HANG_S) as client:
                    assert client.protocol_version == "2026-07-28"
                    answer = await call_tool(
                        client, "create_branch", {"full_name": site, "branch": branch}
                    )
                if token == TOKEN_A:
                    is_error, refused = answer
                    assert is_error and error_code(refused) == "write_not_allowed", refused
                    assert refused["error"]["reason"] == "cross_visibility"
                    assert vault in refused["error"]["message"]
                else:
                    assert not answer[0], answer
        finally:
            await stream.close()
    branches = _branches(forge, site)
    assert "b-work" in branches and "a-leak" not in branches


async def test_under_oauth_the_polls_act_as_the_signed_in_user(oauth_server, forge):
    """GITHUB_MCP_AUTH=oauth: the first read and every poll carry the user's own token
    (the forge logs who asked), never the server's."""
    from tests.oauth.signin import signed_in_client

    forge.add_user("watch-ann", password="watch-ann-pass-3141")
    forge.add_org_member("octo-org", "watch-ann", role="member")
    ci_repo = f"octo-org/watched-as-{next(_numbers)}"
    forge.seed_repo(ci_repo, {"README.md": "# watched\n"})
    run_id = queued_run(forge, ci_repo)
    server = oauth_server(allowed_users="watch-ann", watch_interval_seconds=0.5)
    async with signed_in_client(server.mcp_url, "watch-ann", "watch-ann-pass-3141") as ann:
        await ann.list_tools()  # signs in
        token = ann.oauth_storage.tokens.access_token
    start = len(forge.requests())
    stream = RawListen(server.base_url, 51, [uri_of(ci_repo, run_id)], token=token)
    try:
        await until(stream.acknowledged, "the ack")
        await until(lambda: len(run_gets(forge, ci_repo, run_id, start)) >= 3, "polls")
        complete_workflow_run(forge, ci_repo, run_id, "success")
        await until(lambda: len(stream.updates()) == 1, "the update")
    finally:
        await stream.close()
    assert {r.get("login") for r in run_gets(forge, ci_repo, run_id, start)} == {"watch-ann"}


def _branches(forge: Any, repo: str) -> set[str]:
    token = forge.create_token(login="octocat")
    answer = httpx.get(
        f"{forge.base_url}/repos/{repo}/branches",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    return {b["name"] for b in answer.json()}
