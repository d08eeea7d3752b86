"""A broken response stream resumes through the SHIPPED deploy/nginx.conf: the client
drops the stream of a running call after its first progress event, reconnects with
`Last-Event-ID` (a GET on the same session), and gets every later event and the call's
answer from the replica that holds the session, with nothing repeated."""

from __future__ import annotations

import json
from typing import Any

import httpx2 as httpx

from tests.conftest import DEMO_REPO
from tests.replicas.cluster import BEARER
from tests.replicas.test_shipped_nginx import PROTOCOL, shipped  # noqa: F401 - the fixture
from tests.security.test_principals import RawClient

# Prints its first line, then keeps running long enough for several progress events.
COMMAND = "echo started; sleep 5; echo finished"


def _events(lines: Any) -> Any:
    """(event id, JSON-RPC message) for each SSE event in a stream of lines."""
    event_id, data = None, []
    for line in lines:
        if line.startswith("id:"):
            event_id = line[3:].strip()
        elif line.startswith("data:"):
            data.append(line[5:].strip())
        elif line == "" and data:
            yield event_id, json.loads("\n".join(data))
            event_id, data = None, []


def _headers(client: RawClient, session: str, **extra: str) -> dict[str, str]:
    return {**client.headers(session), **extra}


def test_a_dropped_stream_resumes_through_the_shipped_nginx(shipped):  # noqa: F811
    _, nginx = shipped
    client = RawClient(nginx.url, BEARER, PROTOCOL)
    session = client.initialize()
    branch = {"full_name": DEMO_REPO, "branch": "resume-probe"}
    status, created = client.call("create_branch", branch, session)
    assert status == 200 and not created.get("isError"), created
    call = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tools/call",
        "params": {
            "name": "terminal_command",
            "arguments": {"full_name": DEMO_REPO, "ref": "resume-probe", "command": COMMAND},
            "_meta": {"progressToken": "resume-probe"},
        },
    }
    seen: list[tuple[str | None, dict[str, Any]]] = []
    with httpx.stream(
        "POST", client.url, json=call, headers=_headers(client, session), timeout=60
    ) as first:
        assert first.status_code == 200, first.read()
        for event_id, message in _events(first.iter_lines()):
            seen.append((event_id, message))
            if message.get("method") == "notifications/progress" and event_id:
                break  # the client's connection drops here, mid-call
    assert seen and seen[-1][1].get("method") == "notifications/progress", seen
    last_id = seen[-1][0]
    assert last_id
    resumed: list[tuple[str | None, dict[str, Any]]] = []
    with httpx.stream(
        "GET",
        client.url,
        headers=_headers(client, session, **{"Last-Event-ID": last_id}),
        timeout=60,
    ) as again:
        assert again.status_code == 200, again.read()
        for event_id, message in _events(again.iter_lines()):
            resumed.append((event_id, message))
            if message.get("id") == 7:
                break
    answer = resumed[-1][1]
    assert answer.get("id") == 7 and "result" in answer, resumed
    assert not answer["result"].get("isError"), answer
    assert "finished" in json.dumps(answer["result"])
    ids = [e for e, _ in seen + resumed if e]
    assert len(ids) == len(set(ids)), "an event was delivered twice"
