"""A watched workflow run, over HTTP against the forge: a 2026-07-28 client names the run's
URI (`repo://{owner}/{repo}/actions/runs/{run_id}`) in its `subscriptions/listen` filter
and hears `notifications/resources/updated` once per change of the run's status or
conclusion, tagged with its subscription id; never for a run it did not watch; and the
server stops polling GitHub when the stream closes. Bad URIs are refused with a hint; over
stdio the resource is listed and read. (What a watch counts as a read of, and whose token
the polls carry: tests/security/test_run_watch_reads.py.)

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

import pytest
from mcp import Client
from mcp.client.subscriptions import ResourceUpdated

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from sandbox_forge.admin.seed_collab import complete_workflow_run
from tests.conftest import ROOT
from tests.listen_stream import (
    HANG_S,
    UPDATED,
    RawListen,
    queued_run,
    rerun,
    run_gets,
    until,
    uri_of,
)
from tests.stdio_session import opening, request, run

SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
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


async def test_one_update_per_change_on_the_watching_streams_only_and_polling_ends_with_them(
    served, forge, ci_repo
):
    """Two streams watch one run (each told of each change once, under its own id); a
    third watches another run and hears nothing of the first."""
    watched, unwatched, other = (queued_run(forge, ci_repo) for _ in range(3))
    start = len(forge.requests())
    streams = [RawListen(served, ident, [uri_of(ci_repo, watched)]) for ident in (77, 79)]
    bystander = RawListen(served, 78, [uri_of(ci_repo, other)])

    def told(count: int) -> Callable[[], bool]:
        return lambda: all(len(s.updates()) >= count for s in streams)

    def counts() -> list[int]:
        return [len(s.updates()) for s in streams]

    def three_more_polls() -> Callable[[], bool]:
        seen = len(forge.requests())
        return lambda: len(run_gets(forge, ci_repo, watched, seen)) >= 3

    try:
        await until(lambda: all(s.acknowledged() for s in [*streams, bystander]), "acks")
        for stream in streams:
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
        await until(told(1), "the first update")
        seen = len(forge.requests())
        await until(three_more_polls(), "3 more polls")
        assert counts() == [1, 1], [s.frames for s in streams]
        # nothing changed since: each poll was a conditional GET answered 304
        assert {r["status"] for r in run_gets(forge, ci_repo, watched, seen)} == {304}

        rerun(forge, ci_repo, watched)  # a second change: queued again
        await until(told(2), "the second update")
        await until(three_more_polls(), "3 more polls")
        assert counts() == [2, 2], [s.frames for s in streams]
        complete_workflow_run(forge, ci_repo, watched, "success")  # a third
        await until(told(3), "the third update")
    finally:
        for stream in streams:
            await stream.close()

    try:
        for stream, ident in zip(streams, (77, 79), strict=True):
            uris = [u["params"]["uri"] for u in stream.updates()]
            assert uris == [uri_of(ci_repo, watched)] * 3, stream.frames
            assert all(f["params"]["_meta"][SUBSCRIPTION_ID] == ident for f in stream.frames)
        assert not any(f["method"] == UPDATED for f in bystander.frames), bystander.frames
        # the unwatched run was never asked about
        assert run_gets(forge, ci_repo, unwatched, start) == []

        # the streams closed: their run is polled no more, while the bystander's still is
        assert not bystander.ended.is_set()
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 3, "other polls")
        settled = len(run_gets(forge, ci_repo, watched, start))
        seen = len(forge.requests())
        await until(lambda: len(run_gets(forge, ci_repo, other, seen)) >= 3, "other polls")
        assert len(run_gets(forge, ci_repo, watched, start)) == settled
    finally:
        await bystander.close()


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
