"""The HTTP side of a question (an elicitation) answered through another replica: asking
it with an id every replica can route (state/_questions.py), and taking a client's answer
POST for a question this replica did not ask.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pydantic_core
from mcp.shared.exceptions import MCPError
from mcp.types import ElicitRequest, ElicitRequestFormParams, ElicitRequestURLParams
from starlette.types import Message, Receive, Scope, Send

from github_mcp.kernel.framework_internals import request_outbound
from github_mcp.kernel.principal import ANONYMOUS, principal_from_token
from github_mcp.kernel.question_ids import ID_PREFIX, is_question_id
from github_mcp.pipeline.peer import Answer

if TYPE_CHECKING:  # the state package imports the Redis client: only replicas pay for it
    from github_mcp.state._questions import SharedQuestions

MAX_ANSWER_BYTES = 1 << 20  # an elicitation's answer is a small form


async def ask_shared(
    questions: SharedQuestions,
    session: Any,
    session_id: str,
    principal: str,
    params: ElicitRequestFormParams | ElicitRequestURLParams,
) -> Answer:
    """An elicitation on this request's stream whose answer may reach any replica."""
    data = ElicitRequest(params=params).model_dump(by_alias=True, mode="json", exclude_none=True)
    outbound = request_outbound(session)

    async def send(question_id: str) -> dict[str, Any]:
        opts: Any = {"request_id": question_id}
        result: dict[str, Any] = await outbound.send_raw_request(
            data["method"], data.get("params"), opts
        )
        return result

    message = await questions.ask(session_id, principal, send)
    error = message.get("error")
    if isinstance(error, dict):
        raise MCPError(
            code=int(error.get("code", -32603)), message=str(error.get("message", "error"))
        )
    return Answer.of(message.get("result"))


async def take_answer(
    questions: SharedQuestions,
    session_id: str,
    principal: str,
    scope: Scope,
    receive: Receive,
    send: Send,
) -> Receive | None:
    """For a POST: None when its body answered a question asked on another replica (sent
    there; the client got 202 Accepted), else the `receive` to hand on (the body, read
    here, is replayed)."""
    body, more, extra = b"", True, []
    while more:
        message = await receive()
        if message["type"] != "http.request":
            extra.append(message)
            break
        body += message.get("body", b"")
        more = message.get("more_body", False)
        if len(body) > MAX_ANSWER_BYTES:
            break
    if not more and ID_PREFIX.encode() in body and b'"method"' not in body:
        answer = _answer_of(body)
        if answer is not None and await questions.relay(session_id, principal, answer):
            await _accepted(send)
            return None
    return _replay(body, more, extra, receive)


def requesting_principal() -> str:
    """The principal key of the HTTP request being served, as a call's peer names it."""
    from fastmcp.server.dependencies import get_access_token

    token = get_access_token()
    if token is None:
        return ANONYMOUS.key
    return principal_from_token(token.client_id, token.claims).key


def _answer_of(body: bytes) -> dict[str, Any] | None:
    try:
        message = pydantic_core.from_json(body)
    except ValueError:
        return None
    if not isinstance(message, dict) or not is_question_id(message.get("id")):
        return None
    if message.get("jsonrpc") != "2.0" or ("result" in message) == ("error" in message):
        return None
    return message


def _replay(body: bytes, more: bool, extra: list[Message], receive: Receive) -> Receive:
    queue: list[Message] = [{"type": "http.request", "body": body, "more_body": more}, *extra]

    async def replay() -> Message:
        return queue.pop(0) if queue else await receive()

    return replay


async def _accepted(send: Send) -> None:
    await send({"type": "http.response.start", "status": 202, "headers": []})
    await send({"type": "http.response.body", "body": b""})
