"""Questions the server asks a client mid-call (an elicitation), answered through any
replica.

A 2025-11-25 session's question travels on the stream of the call that asks it; the
client answers with a POST of its own, which the load balancer may send to another
replica (the hash moved when a replica left or came back, or there is no affinity at
all). The replica that asks gives the question an id no other replica can mint
(`srvq-` and 96 random bits, not the library's per-connection counter, which a revived
copy of the session restarts at 0) and records it in Redis: which replica waits, for
which session and principal. A replica that receives an answer it did not ask for looks
the id up and, for the same session and principal, stores the answer (first answer wins)
and publishes it on the asking replica's channel; that replica's listener hands it to the
waiting call. The asking call also reads the stored answer once a second, so an answer
whose message was lost (a listener reconnecting) is still taken. An answer to a replica
that died is stored and expires unread: its call died with it, the client's resumed
stream says so (the resume relay), and the call's retry asks again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import Awaitable, Callable
from typing import Any

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.question_ids import is_question_id, new_question_id
from github_mcp.monitoring.observability import log_event
from github_mcp.state._connection import SharedState, pending

RECHECK_S = 1.0  # the asking call's own look at the stored answer
LISTEN_POLL_S = 0.5
QUESTION_TTL_S = 24 * 3600  # bounds a record whose replica died before deleting it
ANSWER_TTL_S = 600


class SharedQuestions:
    def __init__(self, state: SharedState) -> None:
        self._state = state
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._listener: asyncio.Task[None] | None = None

    def _record(self, question_id: str) -> str:
        return self._state.key("srvq", question_id)

    def _answer(self, question_id: str) -> str:
        return self._state.key("srvq_answer", question_id)

    def _channel(self, replica: str) -> str:
        return self._state.key("srvq_to", replica)

    def asked_here(self, question_id: str) -> bool:
        return question_id in self._waiting

    async def ask(
        self, session: str, principal: str, send: Callable[[str], Awaitable[dict[str, Any]]]
    ) -> dict[str, Any]:
        """`send(question_id)` sends the question and awaits the answer arriving here; the
        answer may instead come through another replica. The JSON-RPC response message."""
        question_id = new_question_id()
        record = {"replica": self._state.replica, "session": session, "principal": principal}
        key = self._record(question_id)
        text = json.dumps(record)
        await self._run("question_put", lambda r: r.set(key, text, ex=QUESTION_TTL_S))
        relayed: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[question_id] = relayed
        self.start()
        direct = asyncio.ensure_future(send(question_id))
        recheck = asyncio.ensure_future(self._recheck(question_id, relayed))
        try:
            await asyncio.wait({direct, relayed}, return_when=asyncio.FIRST_COMPLETED)
            if relayed.done():
                log_event("question_answered_elsewhere", question=question_id[-8:])
                return relayed.result()
            return {"jsonrpc": "2.0", "id": question_id, "result": direct.result()}
        finally:
            self._waiting.pop(question_id, None)
            for task in (direct, recheck):
                task.cancel()
            await asyncio.wait([direct, recheck], timeout=1.0)
            answer = self._answer(question_id)
            await self._run("question_drop", lambda r: r.delete(key, answer))

    async def relay(self, session: str, principal: str, message: dict[str, Any]) -> bool:
        """An answer (a JSON-RPC response) this replica did not ask for: True when it went
        to the replica that did (or is stored for it); False to let it take the usual way."""
        question_id = message.get("id")
        if not isinstance(question_id, str) or not is_question_id(question_id):
            return False
        if self.asked_here(question_id):
            return False
        raw = await self._run("question_get", lambda r: r.get(self._record(question_id)))
        try:
            record = json.loads(raw) if raw else None
        except ValueError:
            record = None
        if not isinstance(record, dict) or record.get("replica") == self._state.replica:
            return False
        if record.get("session") != session or record.get("principal") != principal:
            return False  # another session's or principal's question: as if unknown
        text = json.dumps(message)
        answer, channel = self._answer(question_id), self._channel(str(record["replica"]))

        async def store_and_tell(r: Any) -> Any:
            pipe = r.pipeline(transaction=False)
            pipe.set(answer, text, ex=ANSWER_TTL_S, nx=True)
            pipe.publish(channel, text)
            return await pipe.execute()

        outcome: list[Any] | None = await self._run("question_relay", store_and_tell)
        heard = bool(outcome and outcome[1])
        log_event("question_relayed", question=question_id[-8:], heard=heard)
        return outcome is not None

    async def _recheck(self, question_id: str, relayed: asyncio.Future[dict[str, Any]]) -> None:
        key = self._answer(question_id)
        while not relayed.done():
            await asyncio.sleep(RECHECK_S)
            raw = await self._run("question_recheck", lambda r: r.get(key))
            if raw and not relayed.done():
                with contextlib.suppress(ValueError):
                    relayed.set_result(json.loads(raw))

    def start(self) -> None:
        if self._listener is None or self._listener.done():
            self._listener = asyncio.get_running_loop().create_task(self._listen())

    async def stop(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
            self._listener = None

    async def _listen(self) -> None:
        """This replica's channel: answers other replicas received for its questions."""
        while True:
            try:
                async with self._state.redis.pubsub(ignore_subscribe_messages=True) as sub:
                    await sub.subscribe(self._channel(self._state.replica))
                    while True:
                        found = await sub.get_message(timeout=LISTEN_POLL_S)
                        if found is not None:
                            self._deliver(found.get("data"))
            except asyncio.CancelledError:
                raise
            except Exception as exc:  # Redis away: the asking calls' rechecks carry on
                log_event("question_listener_lost", error=type(exc).__name__)
                await asyncio.sleep(LISTEN_POLL_S)

    def _deliver(self, data: Any) -> None:
        try:
            message = json.loads(data)
        except (TypeError, ValueError):
            return
        found = message.get("id") if isinstance(message, dict) else None
        waiting = self._waiting.get(found) if isinstance(found, str) else None
        if waiting is not None and not waiting.done():
            waiting.set_result(message)

    async def _run(self, what: str, command: Any) -> Any:
        """One Redis step; Redis down costs the relay, never the call (None)."""
        try:
            async with self._state.op(what) as r:
                return await pending(command(r))
        except GitHubMCPError:
            return None
