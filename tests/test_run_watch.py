"""A watched workflow run, over HTTP against the forge: a 2026-07-28 client names the run's
URI (`repo://{owner}/{repo}/actions/runs/{run_id}`) in its `subscriptions/listen` filter
and hears `notifications/resources/updated` once per change of the run's status or
conclusion, tagged with its subscription id; never for a run it did not watch; and the
server stops polling GitHub when the stream closes.

Evidence comes from the forge: the run's state is moved there (as CI would move it), and
its request log shows the polls (conditional GETs answered 304 while nothing changed)
and that they stop. Waits are on conditions (frames seen, polls logged) with generous
bounds that only catch a hang; none times anything.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client as FastClient
from fastmcp.client.transports import StreamableHttpTransport
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from sandbox_forge.admin.seed_collab import add_workflow_run, complete_workflow_run
from tests.approvals.conftest import TOKEN_A, TOKEN_B
from tests.approvals.conftest import approval_server as approval_server  # the HTTP server
from tests.approvals.conftest import oauth_server as oauth_server  # the OAuth-mode server
from tests.conftest import ROOT, call_tool, error_code
from tests.stdio_session import modern_meta, opening, request, run

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
UPDATED = "notifications/resources/updated"
HANG_S = 120  # bounds a hang only
_numbers = itertools.count(1)


@pytest.fixture
def served(make_runtime) -> Iterator[str]:
    """The server over HTTP, polling watched runs every half second (the least allowed)."""
    rt = make_runtime(watch_interval_seconds=0.5)
    with serve_in_thread(build_http_app(rt)) as url:
        yield url


@pytest.fixture
def ci_repo(forge) -> str:
    name = f"octo-org/watched-{next(_numbers)}"
    forge.seed_repo(name, {"README.md": "# watched\n"})
    return name


def queued_run(forge: Any, repo: str) -> int:
    run = add_workflow_run(forge, repo, "ci.yml", status="queued", jobs=[{"name": "unit"}])
    assert run["status"] == "queued", run
    return int(run["id"])


def uri_of(repo: str, run_id: int) -> str:
    return f"repo://{repo}/actions/runs/{run_id}"


def run_gets(forge: Any, repo: str, run_id: int, since: int = 0) -> list[dict[str, Any]]:
    """The forge's log of GETs of the run (the server's polls and reads), finished ones."""
    path = f"/repos/{repo}/actions/runs/{run_id}"
    return [
        r
        for r in forge.requests()[since:]
        if r["method"] == "GET" and r["path"] == path and r.get("status") is not None
    ]


async def until(condition: Callable[[], bool], what: str) -> None:
    """Wait for `condition`; the bound only catches a hang."""
    async with asyncio.timeout(HANG_S):
        while not condition():
            await asyncio.sleep(0.05)
    assert condition(), what


def rerun(forge: Any, repo: str, run_id: int) -> None:
    """A new attempt, asked through the forge's API as a person would (queued again)."""
    token = forge.create_token(login="octocat")
    answer = httpx.post(
        f"{forge.base_url}/repos/{repo}/actions/runs/{run_id}/rerun",
        headers={"Authorization": f"Bearer {token}"},
        timeout=30,
    )
    assert answer.status_code == 201, answer.text


class RawListen:
    """One `subscriptions/listen` stream over HTTP, every frame kept as sent."""

    def __init__(self, url: str, ident: int, watch: list[str], token: str | None = None) -> None:
        self.frames: list[dict[str, Any]] = []
        self.status: int | None = None
        self.ended = asyncio.Event()
        body = {
            "jsonrpc": "2.0",
            "id": ident,
            "method": "subscriptions/listen",
            "params": {
                "_meta": modern_meta("raw"),
                "notifications": {"resourceSubscriptions": watch},
            },
        }
        headers = {
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": "subscriptions/listen",
        }
        if token is not None:
            headers["Authorization"] = f"Bearer {token}"
        self._task = asyncio.create_task(self._read(url + "/mcp", body, headers))

    async def _read(self, url: str, body: dict[str, Any], headers: dict[str, str]) -> None:
        try:
            async with (
                httpx.AsyncClient(timeout=None) as client,
                client.stream("POST", url, json=body, headers=headers) as response,
            ):
                self.status = response.status_code
                if not response.headers.get("content-type", "").startswith("text/event-stream"):
                    self.frames.append(json.loads(await response.aread()))
                    return
                async for line in response.aiter_lines():
                    if line.startswith("data:") and line[5:].strip():
                        self.frames.append(json.loads(line[5:]))
        finally:
            self.ended.set()

    def methods(self) -> list[str | None]:
        return [f.get("method") for f in self.frames]

    def updates(self) -> list[dict[str, Any]]:
        return [f for f in self.frames if f.get("method") == UPDATED]

    def acknowledged(self) -> bool:
        return "notifications/subscriptions/acknowledged" in self.methods()

    def error(self) -> dict[str, Any] | None:
        return next((f["error"] for f in self.frames if "error" in f), None)

    async def close(self) -> None:
        self._task.cancel()
        await asyncio.gather(self._task, return_exceptions=True)


async def test_the_sdk_listener_hears_its_run_finish_and_reads_the_new_state(
    served, forge, ci_repo
):
    run_id = queued_run(forge, ci_repo)
    uri = uri_of(ci_repo, run_id)
    async with (
        Client(served + "/mcp") as client,  # probes server/discover
        client.listen(resource_subscriptions=[uri]) as subscription,
    ):
        assert client.protocol_version == "2026-07-28"
        assert client.server_capabilities.resources is not None
        assert client.server_capabilities.resources.subscribe is True
        assert subscription.honored.resource_subscriptions == [uri]
        before = json.loads((await client.read_resource(uri)).contents[0].text)
        assert before["run"]["status"] == "queued" and before["run"].get("conclusion") is None
        complete_workflow_run(forge, ci_repo, run_id, "failure")
        event = await asyncio.wait_for(anext(aiter(subscription)), timeout=HANG_S)
        assert isinstance(event, ResourceUpdated) and event.uri == uri
        read = await client.read_resource(uri)
    content = read.contents[0]
    assert content.mime_type == "application/json"
    state = json.loads(content.text)
    assert state["run"]["id"] == run_id
    assert (state["run"]["status"], state["run"]["conclusion"]) == ("completed", "failure")
    assert state["run"]["head_sha"] == before["run"]["head_sha"]
    assert [(j["name"], j["conclusion"]) for j in state["jobs"]] == [("unit", "failure")]


async def test_one_update_per_change_on_the_watching_stream_only_and_polling_ends_with_it(
    served, forge, ci_repo
):
    watched, unwatched, other = (queued_run(forge, ci_repo) for _ in range(3))
    start = len(forge.requests())
    stream = RawListen(served, 77, [uri_of(ci_repo, watched)])
    bystander = RawListen(served, 78, [uri_of(ci_repo, other)])
    try:
        await until(lambda: stream.acknowledged() and bystander.acknowledged(), "acks")
        ack = stream.frames[0]
        assert ack["method"] == "notifications/subscriptions/acknowledged", stream.frames
        assert ack["params"]["notifications"] == {
            "resourceSubscriptions": [uri_of(ci_repo, watched)]
        }
        polled = len(run_gets(forge, ci_repo, watched, start))
        await until(lambda: len(run_gets(forge, ci_repo, watched, start)) > polled, "a poll")

        # the unwatched run finishes first, then the watched one fails
        complete_workflow_run(forge, ci_repo, unwatched, "success")
        complete_workflow_run(forge, ci_repo, watched, "failure")
        await until(lambda: len(stream.updates()) == 1, "the first update")
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, watched, seen)) >= 3, "3 more polls")
        assert len(stream.updates()) == 1, stream.frames
        # nothing changed since: each poll was a conditional GET answered 304
        assert {r["status"] for r in run_gets(forge, ci_repo, watched, seen)} == {304}

        rerun(forge, ci_repo, watched)  # a second change: queued again
        await until(lambda: len(stream.updates()) == 2, "the second update")
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, watched, seen)) >= 3, "3 more polls")
        assert len(stream.updates()) == 2, stream.frames
        complete_workflow_run(forge, ci_repo, watched, "success")  # a third
        await until(lambda: len(stream.updates()) == 3, "the third update")
    finally:
        await stream.close()

    updates = stream.updates()
    assert [u["params"]["uri"] for u in updates] == [uri_of(ci_repo, watched)] * 3
    assert all(f["params"]["_meta"][SUBSCRIPTION_ID] == 77 for f in stream.frames), stream.frames
    assert not any(f["method"] == UPDATED for f in bystander.frames), bystander.frames
    # the unwatched run was never asked about
    assert run_gets(forge, ci_repo, unwatched, start) == []

    # the stream closed: its run is polled no more, while the bystander's still is
    assert not bystander.ended.is_set()
    seen = len(forge.requests())
    await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 3, "bystander polls")
    settled = len(run_gets(forge, ci_repo, watched, start))
    seen = len(forge.requests())
    await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 3, "bystander polls")
    await bystander.close()
    assert len(run_gets(forge, ci_repo, watched, start)) == settled


async def test_a_rate_limit_pauses_the_polling_as_it_says(served, forge, ci_repo):
    """GitHub's secondary limit asks for 60 s (longer than the client's own retry wait):
    the watched run is not asked about again meanwhile, while another stream's run is."""
    watched, other = queued_run(forge, ci_repo), queued_run(forge, ci_repo)
    path = f"/repos/{ci_repo}/actions/runs/{watched}"
    stream = RawListen(served, 31, [uri_of(ci_repo, watched)])
    bystander = RawListen(served, 32, [uri_of(ci_repo, other)])
    try:
        await until(lambda: stream.acknowledged() and bystander.acknowledged(), "acks")
        forge.add_fault(path=re.escape(path) + "$", method="GET", preset="secondary_rate_limit")
        start = len(forge.requests())
        await until(
            lambda: any(r["status"] == 403 for r in run_gets(forge, ci_repo, watched, start)),
            "the limited poll",
        )
        limited = len(run_gets(forge, ci_repo, watched, start))
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 6, "other polls")
        assert len(run_gets(forge, ci_repo, watched, start)) == limited
        assert not stream.ended.is_set() and stream.updates() == []
    finally:
        await stream.close()
        await bystander.close()


async def test_a_run_gone_is_told_once_and_polled_no_more(served, forge, ci_repo):
    """GitHub answers 404 for the run from now on (deleted, or access lost): one update,
    whose read then says why, and no poll after it."""
    watched, other = queued_run(forge, ci_repo), queued_run(forge, ci_repo)
    path = f"/repos/{ci_repo}/actions/runs/{watched}"
    stream = RawListen(served, 41, [uri_of(ci_repo, watched)])
    bystander = RawListen(served, 42, [uri_of(ci_repo, other)])
    try:
        await until(lambda: stream.acknowledged() and bystander.acknowledged(), "acks")
        forge.add_fault(path=re.escape(path) + "$", method="GET", status=404, times=None)
        start = len(forge.requests())
        await until(lambda: len(stream.updates()) == 1, "the update")
        gone = len(run_gets(forge, ci_repo, watched, start))
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 4, "other polls")
        assert len(run_gets(forge, ci_repo, watched, start)) == gone
        assert len(stream.updates()) == 1 and not stream.ended.is_set()
    finally:
        await stream.close()
        await bystander.close()
        forge.clear_faults()


def test_stdio_lists_and_reads_the_run_resource(forge, forge_token, ci_repo, tmp_path):
    run_id = queued_run(forge, ci_repo)
    complete_workflow_run(forge, ci_repo, run_id, "success")
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    steps = [
        *opening(),
        [
            request(3, "resources/templates/list"),
            request(4, "resources/read", {"uri": uri_of(ci_repo, run_id)}),
            request(5, "resources/read", {"uri": f"repo://{ci_repo}/actions/runs/x1"}),
        ],
    ]
    session = run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env)
    assert session.returncode == 0
    templates = {t["name"]: t for t in session.result(3)["resourceTemplates"]}
    assert templates["workflow_run"]["uriTemplate"] == "repo://{owner}/{repo}/actions/runs/{run_id}"
    content = session.result(4)["contents"][0]
    assert content["mimeType"] == "application/json"
    state = json.loads(content["text"])
    assert (state["run"]["id"], state["run"]["status"]) == (run_id, "completed")
    assert state["run"]["conclusion"] == "success"
    bad = session.answer(5)["error"]
    assert bad["code"] == -32602 and bad["data"]["error"]["hint"], bad


@pytest.mark.parametrize(
    ("watch", "code", "says"),
    [
        (["repo://octo-org/x/actions/runs/abc"], -32602, "run_id must be a positive integer"),
        (["repo://octo-org/x/actions/runs/1/jobs"], -32602, "ends with its numeric id"),
        (["repo://octo-org/x/blob/main/README.md"], -32602, "only workflow runs"),
        (["github://contract"], -32602, "only workflow runs"),
        ([f"repo://octo-org/x/actions/runs/{n}" for n in range(1, 22)], -32602, "at most 20"),
    ],
)
async def test_a_bad_uri_is_refused_with_a_hint(served, forge, watch, code, says):
    start = len(forge.requests())
    stream = RawListen(served, 5, watch)
    await asyncio.wait_for(stream.ended.wait(), timeout=HANG_S)
    error = stream.error()
    assert error is not None and error["code"] == code, stream.frames
    assert says in error["message"], error
    assert error["data"]["error"]["hint"], error
    assert not stream.acknowledged()
    assert [r for r in forge.requests()[start:] if "/actions/runs/" in r["path"]] == []


async def test_a_run_that_does_not_exist_is_refused_as_its_read_is(served, forge, ci_repo):
    uri = uri_of(ci_repo, 987654321)
    stream = RawListen(served, 6, [uri])
    await asyncio.wait_for(stream.ended.wait(), timeout=HANG_S)
    error = stream.error()
    assert error is not None and error["code"] == -32602, stream.frames
    assert error["message"].startswith("Resource not found"), error
    assert error["data"]["uri"] == uri and error["data"]["error"]["code"] == "not_found"
    async with Client(served + "/mcp", mode="2026-07-28") as client:
        with pytest.raises(Exception) as read:
            await client.read_resource(uri)
    assert "Resource not found" in str(read.value)


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


async def test_under_oauth_the_polls_act_as_the_signed_in_user(oauth_server, forge, ci_repo):
    """GITHUB_MCP_AUTH=oauth: the first read and every poll carry the user's own token
    (the forge logs who asked), never the server's."""
    from tests.oauth.signin import signed_in_client

    forge.add_user("watch-ann", password="watch-ann-pass-3141")
    forge.add_org_member("octo-org", "watch-ann", role="member")
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
