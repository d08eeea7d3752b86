"""`subscriptions/listen` (2026-07-28) over stdio, with a real `main.py serve` process on
pipes and the sandbox forge:

- each stream is acknowledged first with the filter it honours, every frame carries its
  subscription id (the listen request's id), and a toolset enabled (enable_toolset) is a
  tools-list change on the streams that asked for one, not on the others; the list then
  holds the toolset's tools;
- `notifications/cancelled` ends a stream: no answer, and nothing more on it;
- a watched workflow run's change arrives once on its stream, and a cancelled stream's
  run is polled no more while another stream's still is (the forge's request log);
- a URI that is not a workflow run's is refused with a hint, before any acknowledgment.

Waits are on frames and on the forge's log, bounded only to end a hang.
"""

from __future__ import annotations

import uuid

import pytest

from sandbox_forge.admin.seed_collab import complete_workflow_run
from tests.listen_stream import queued_run, run_gets, uri_of
from tests.stdio_client import SUBSCRIPTION_ID, StdioClient, meta
from tests.test_tasks_stdio import _until, stdio_env

ACK = "notifications/subscriptions/acknowledged"
CHANGED = "notifications/tools/list_changed"
UPDATED = "notifications/resources/updated"


def _on(stream: int):
    def found(frame: dict) -> bool:
        meta = (frame.get("params") or {}).get("_meta") or {}
        return "method" in frame and meta.get(SUBSCRIPTION_ID) == stream

    return found


def _listen(client: StdioClient, ident: int, notifications: dict) -> None:
    client.send(
        {
            "jsonrpc": "2.0",
            "id": ident,
            "method": "subscriptions/listen",
            "params": {"notifications": notifications, "_meta": _meta()},
        }
    )


def _meta() -> dict:
    return meta(tasks=False)


def _enable(toolset: str) -> dict:
    return {"name": "enable_toolset", "arguments": {"name": toolset}}


def _cancel(client: StdioClient, ident: int) -> None:
    params = {"requestId": ident, "reason": "done"}
    client.send({"jsonrpc": "2.0", "method": "notifications/cancelled", "params": params})


@pytest.fixture
def client(forge, forge_token, tmp_path):
    env = stdio_env(tmp_path, forge.base_url, forge_token, GITHUB_MCP_WATCH_INTERVAL_SECONDS="0.5")
    running = StdioClient(env, stderr=tmp_path / "server.log")
    yield running
    assert running.close() == 0  # open streams do not keep the process up at end of input


def test_acknowledged_then_told_of_a_toolset_change_per_filter(client):
    discover = client.call("server/discover", tasks=False)["result"]["capabilities"]
    assert discover["tools"] == {"listChanged": True}, discover
    listed = client.call("tools/list", tasks=False)["result"]["tools"]
    assert "list_discussions" not in {t["name"] for t in listed}
    _listen(client, 41, {"toolsListChanged": True, "promptsListChanged": False})
    _listen(client, 42, {"promptsListChanged": True})
    for stream in (41, 42):
        ack = client.wait_for(_on(stream), f"stream {stream}'s acknowledgment")
        assert ack["method"] == ACK, ack
    assert client.wait_for(_on(41), "ack")["params"]["notifications"] == {"toolsListChanged": True}

    enabled = client.call("tools/call", _enable("discussions"), tasks=False)
    assert enabled["result"]["structuredContent"]["list_changed"] is True, enabled
    change = client.wait_for(lambda f: f.get("method") == CHANGED, "the list change")
    assert change["params"]["_meta"] == {SUBSCRIPTION_ID: 41}, change
    listed = client.call("tools/list", tasks=False)["result"]["tools"]
    assert "list_discussions" in {t["name"] for t in listed}

    _cancel(client, 41)
    again = client.call("tools/call", _enable("stars"), tasks=False)
    assert again["result"]["structuredContent"]["list_changed"] is True, again
    # the change is written before the call's answer: had 41 been open, it would be here
    assert [f["params"]["_meta"][SUBSCRIPTION_ID] for f in client.notifications(CHANGED)] == [41]
    assert [f["method"] for f in client.frames if _on(42)(f)] == [ACK]
    assert not [f for f in client.frames if f.get("id") in (41, 42)]  # streams never answer


@pytest.mark.timeout(300)
def test_a_watched_run_is_told_once_and_polled_while_its_stream_lives(client, forge):
    repo = f"octo-org/stdio-watch-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "# watched\n"})
    watched, other = queued_run(forge, repo), queued_run(forge, repo)
    start = len(forge.requests())
    _listen(client, 7, {"resourceSubscriptions": [uri_of(repo, watched)]})
    _listen(client, 8, {"resourceSubscriptions": [uri_of(repo, other)]})
    for stream in (7, 8):
        assert client.wait_for(_on(stream), "ack")["method"] == ACK
    _until(lambda: len(run_gets(forge, repo, watched, start)) >= 3, "polls of the watched run")

    complete_workflow_run(forge, repo, watched, "failure")
    update = client.wait_for(lambda f: f.get("method") == UPDATED, "the run's update")
    assert update["params"] == {"uri": uri_of(repo, watched), "_meta": {SUBSCRIPTION_ID: 7}}

    _cancel(client, 7)
    # once the other stream's run was polled 3 times more after the cancel, twice over,
    # the watched run's count has settled: its polling stopped
    seen = len(forge.requests())
    _until(lambda: len(run_gets(forge, repo, other, seen)) >= 3, "other polls")
    settled = len(run_gets(forge, repo, watched, start))
    seen = len(forge.requests())
    _until(lambda: len(run_gets(forge, repo, other, seen)) >= 3, "other polls")
    assert len(run_gets(forge, repo, watched, start)) == settled
    assert [f["params"]["uri"] for f in client.notifications(UPDATED)] == [uri_of(repo, watched)]


def test_a_uri_that_is_no_run_is_refused_before_any_acknowledgment(client):
    _listen(client, 5, {"toolsListChanged": True, "resourceSubscriptions": ["repo://o/r/issues/1"]})
    refused = client.answer(5)["error"]
    assert refused["code"] == -32602, refused
    assert "workflow runs" in refused["message"] and refused["data"]["error"]["hint"], refused
    assert not client.notifications(ACK)
