"""The asks of a tools/call request's `_meta` (serving/request_meta.py), as plain values."""

from __future__ import annotations

import pytest

from github_mcp.serving import request_meta
from github_mcp.serving.request_meta import RequestMeta, RpcError, parse, sends_log, shaped

MODERN = {
    request_meta.PROTOCOL_VERSION: "2026-07-28",
    request_meta.CLIENT_INFO: {"name": "c", "version": "1"},
    request_meta.CLIENT_CAPABILITIES: {},
}


def _refused(meta: object) -> RpcError:
    with pytest.raises(RpcError) as refused:
        parse(meta)
    return refused.value


def test_handshake_requests_carry_a_progress_token_and_keys_of_their_own():
    assert parse(None) == parse({}) == RequestMeta()
    assert parse({"progressToken": 7}) == RequestMeta(progress_token=7)
    assert parse({"progressToken": "p"}) == RequestMeta(progress_token="p")
    assert parse({"idempotency_key": "k", "other": 1}) == RequestMeta()  # passed to the call
    for bad in ({"progressToken": True}, {"progressToken": [1]}, [1], "x"):
        assert _refused(bad).code == request_meta.INVALID_PARAMS, bad


def test_2026_requests_name_their_revision_client_and_capabilities():
    asks = parse({**MODERN, request_meta.LOG_LEVEL: "warning", "progressToken": 3})
    assert asks == RequestMeta(progress_token=3, modern=True, log_level="warning")
    assert parse(MODERN) == RequestMeta(modern=True)
    caps = {"elicitation": {}}
    assert parse({**MODERN, request_meta.CLIENT_CAPABILITIES: caps}).capabilities == caps
    unserved = _refused({**MODERN, request_meta.PROTOCOL_VERSION: "2025-06-18"})
    assert unserved.code == request_meta.UNSUPPORTED_PROTOCOL_VERSION
    assert unserved.data == {"supported": ["2026-07-28"], "requested": "2025-06-18"}
    missing = {k: v for k, v in MODERN.items() if k != request_meta.CLIENT_CAPABILITIES}
    assert _refused(missing).code == request_meta.INVALID_PARAMS
    assert _refused({**MODERN, request_meta.LOG_LEVEL: "loud"}).code == request_meta.INVALID_PARAMS


def test_log_notifications_follow_the_session_or_the_request():
    handshake = RequestMeta()
    assert sends_log(handshake, "info", "info") and not sends_log(handshake, "debug", "info")
    assert sends_log(handshake, "debug", "debug")  # the client lowered it with setLevel
    assert not sends_log(RequestMeta(modern=True), "error", "debug")  # no opt-in: nothing
    opted = RequestMeta(modern=True, log_level="debug")
    # the request's own level, below the server's floor for sessions that chose none
    assert sends_log(opted, "debug", "info") and sends_log(opted, "info", "info")
    warned = RequestMeta(modern=True, log_level="warning")
    assert not sends_log(warned, "info", "debug") and sends_log(warned, "error", "debug")
    strict = RequestMeta(modern=True, log_level="error")
    assert sends_log(strict, "error", "info") and not sends_log(strict, "warning", "info")


def test_2026_results_say_they_are_complete_and_name_the_server():
    result = {"content": [], "isError": False, "_meta": {"card": 1}}
    server = {"name": "s", "version": "1"}
    assert shaped(result, RequestMeta(), server) is result
    modern = shaped(result, RequestMeta(modern=True), server)
    assert modern["resultType"] == "complete"
    assert modern["_meta"] == {"card": 1, request_meta.SERVER_INFO: server}
    assert result["_meta"] == {"card": 1}  # the pipeline's answer is not changed
