"""The client side of bench/scale.py: one 2025-11-25 MCP session over streamable HTTP,
by hand (raw JSON-RPC on a small HTTP client, bench/_raw_http.py, so the generator takes
little of the CPU it shares with the server and every HTTP status is seen), doing reads,
listings and writes, and a tally of what happened to every attempt.

The client behaves as a careful one does: on 404 "Session not found" it initializes again
and retries; on a gateway error, a cut connection or a retryable `unavailable` it retries
after a pause; a write's retries carry its idempotency key. Not a benchmark itself.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
from _raw_http import RawHttp, Reply

PROTOCOL = "2025-11-25"
MAX_ATTEMPTS = 6
RETRY_PAUSE_S = 0.5
ANSWER_WITHIN_S = 60.0  # a call not answered in this long counts as hung


@dataclass
class Tally:
    """Every attempt's outcome, by kind (read, listing, write) and reason."""

    started: float = field(default_factory=time.monotonic)
    failed: Counter[tuple[str, str]] = field(default_factory=Counter)
    lost: Counter[str] = field(default_factory=Counter)  # calls that failed on every try
    unfinished: Counter[str] = field(default_factory=Counter)  # still waiting at the end
    # ok calls' milliseconds, from the first try's request to the answer (retries and
    # their pauses included: what the agent waited)
    ok: dict[str, list[float]] = field(default_factory=lambda: defaultdict(list))
    # every ok call: (kind, began, ended (monotonic), tries)
    calls: list[tuple[str, float, float, int]] = field(default_factory=list)
    reinitializes: int = 0
    broken_sessions: set[int] = field(default_factory=set)  # got 404 at least once
    # writes: marker -> (kind, target); acknowledged markers
    intended: dict[str, tuple[str, str]] = field(default_factory=dict)
    acknowledged: set[str] = field(default_factory=set)
    # sessions opened while a replica was down: index -> (kill number, broken after return)
    opened_while_down: dict[int, int] = field(default_factory=dict)
    ever_opened_while_down: set[int] = field(default_factory=set)
    broke_after_return: set[int] = field(default_factory=set)

    def now(self) -> float:
        return time.monotonic() - self.started


class Outage:
    """The kill schedule's state, read by sessions: which replica is down, since when."""

    def __init__(self) -> None:
        self.kills = 0  # kills so far (the current or last one's number)
        self.down: int | None = None  # kill number while a replica is down
        self.returned: dict[int, float] = {}  # kill number -> when its replica answered again
        self.killed: dict[int, float] = {}  # kill number -> when its replica was SIGKILLed
        self.ready: dict[int, float] = {}  # kill number -> when its replica's app was built
        self.ports: dict[int, int] = {}  # kill number -> its replica's port


class Failure(Exception):
    def __init__(self, reason: str, session_lost: bool = False) -> None:
        super().__init__(reason)
        self.reason, self.session_lost = reason, session_lost


def _answer(response: Reply, request_id: int) -> dict[str, Any]:
    if response.headers.get("content-type", "").startswith("application/json"):
        return dict(response.json())
    for line in response.text.splitlines():
        if not line.startswith("data:") or not line[5:].strip():
            continue  # another field, or the priming event's empty data
        try:
            message = json.loads(line[5:])
        except ValueError:
            raise Failure("stream cut mid-event") from None
        if message.get("id") == request_id and ("result" in message or "error" in message):
            return dict(message)
    raise Failure("stream ended without the answer")


class ScaleSession:
    def __init__(self, index: int, http: RawHttp, url: str, token: str, tally: Tally) -> None:
        self.index, self.http, self.url, self.tally = index, http, url + "/mcp", tally
        self.token = token
        self.session_id: str | None = None
        self.next_id = 0
        self.writes = 0
        self.current: str | None = None  # the kind of the call under way

    def _headers(self) -> dict[str, str]:
        headers = {
            "Authorization": f"Bearer {self.token}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
            "MCP-Protocol-Version": PROTOCOL,
        }
        if self.session_id:
            headers["Mcp-Session-Id"] = self.session_id
        return headers

    async def _post(self, message: dict[str, Any]) -> Reply:
        try:
            response = await self.http.post(
                self.url, content=json.dumps(message), headers=self._headers()
            )
        except httpx.TimeoutException:
            raise Failure(f"no answer in {ANSWER_WITHIN_S:.0f} s") from None
        except httpx.TransportError as exc:
            raise Failure(f"connection: {type(exc).__name__}") from None
        if response.status_code == 404 and "Session not found" in response.text:
            raise Failure("HTTP 404 session not found", session_lost=True)
        if response.status_code not in (200, 202):
            raise Failure(f"HTTP {response.status_code}")
        return response

    async def initialize(self, outage: Outage) -> None:
        for _attempt in range(MAX_ATTEMPTS):
            self.session_id = None
            self.next_id += 1
            params = {
                "protocolVersion": PROTOCOL,
                "capabilities": {},
                "clientInfo": {"name": "bench-scale", "version": "1"},
            }
            message = {"jsonrpc": "2.0", "id": self.next_id, "method": "initialize"}
            try:
                response = await self._post({**message, "params": params})
                session = response.headers.get("mcp-session-id")
                if not session:
                    raise Failure("initialize: no session id")
                self.session_id = session
                await self._post({"jsonrpc": "2.0", "method": "notifications/initialized"})
            except Failure as failure:
                self.tally.failed["initialize", failure.reason] += 1
                await asyncio.sleep(RETRY_PAUSE_S)
                continue
            if outage.down is not None:
                self.tally.opened_while_down[self.index] = outage.down
                self.tally.ever_opened_while_down.add(self.index)
            else:
                self.tally.opened_while_down.pop(self.index, None)
            return
        raise RuntimeError(f"session {self.index} could not initialize")

    async def attempt(
        self, tool: str, arguments: dict[str, Any], key: str = ""
    ) -> tuple[Failure | None, float]:
        """One try: (None when it succeeded, else its failure; milliseconds)."""
        params: dict[str, Any] = {"name": tool, "arguments": arguments}
        if key:
            params["_meta"] = {"idempotency_key": key}
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call"}
        began = time.monotonic()
        try:
            answer = _answer(await self._post({**message, "params": params}), self.next_id)
            if "error" in answer:
                raise Failure(f"JSON-RPC error {answer['error'].get('code')}")
            result = answer["result"]
            if result.get("isError"):
                error = (result.get("structuredContent") or {}).get("error") or {}
                raise Failure(f"tool error {error.get('code', '?')}")
        except Failure as failure:
            return failure, (time.monotonic() - began) * 1000
        return None, (time.monotonic() - began) * 1000

    async def call(
        self, kind: str, tool: str, arguments: dict[str, Any], outage: Outage, key: str = ""
    ) -> bool:
        """One call, retried as a careful client does; True when it finally succeeded."""
        self.current = kind
        try:
            return await self._call(kind, tool, arguments, outage, key)
        finally:
            self.current = None

    async def _call(
        self, kind: str, tool: str, arguments: dict[str, Any], outage: Outage, key: str
    ) -> bool:
        began = time.monotonic()
        for attempt in range(MAX_ATTEMPTS):
            failure, _ms = await self.attempt(tool, arguments, key)
            if failure is None:
                ended = time.monotonic()
                self.tally.ok[kind].append((ended - began) * 1000)
                self.tally.calls.append((kind, began, ended, attempt + 1))
                return True
            self.tally.failed[kind, failure.reason] += 1
            if failure.session_lost:
                self._lost_session(outage)
                await self.initialize(outage)
            else:
                await asyncio.sleep(RETRY_PAUSE_S)
        self.tally.lost[kind] += 1
        return False

    def _lost_session(self, outage: Outage) -> None:
        self.tally.broken_sessions.add(self.index)
        self.tally.reinitializes += 1
        kill = self.tally.opened_while_down.get(self.index)
        if kill is not None and kill in outage.returned and outage.kills == kill:
            self.tally.broke_after_return.add(self.index)

    async def run(
        self, repo: str, issues: int, pace_s: float, until: float, outage: Outage
    ) -> None:
        """Calls at random intervals (mean `pace_s`) until `until` (monotonic)."""
        branch = f"s{self.index:03d}"
        rng = random.Random(self.index)
        while True:
            await asyncio.sleep(rng.expovariate(1 / pace_s))
            if time.monotonic() >= until:
                return
            roll = rng.random()
            if roll < 0.6:
                path = rng.choice(["README.md", "src/app.py", f"s/{branch}.txt"])
                ref = branch if path.startswith("s/") else "main"
                args = {"full_name": repo, "path": path, "ref": ref}
                await self.call("read", "get_file_contents", args, outage)
            elif roll < 0.8:
                tool, args = rng.choice(
                    [
                        ("list_issues", {"full_name": repo, "limit": 10}),
                        ("list_branches", {"full_name": repo, "limit": 10}),
                        ("list_commits", {"full_name": repo, "ref": branch, "limit": 10}),
                    ]
                )
                await self.call("listing", tool, args, outage)
            else:
                await self._write(repo, issues, branch, rng, outage)

    async def _write(
        self, repo: str, issues: int, branch: str, rng: random.Random, outage: Outage
    ) -> None:
        self.writes += 1
        marker = f"scale-{self.index:03d}-{self.writes:04d}"
        if rng.random() < 0.5:
            number = 1 + self.index % issues
            self.tally.intended[marker] = ("comment", str(number))
            args: dict[str, Any] = {"full_name": repo, "number": number, "body": marker}
            tool = "comment_on_issue"
        else:
            self.tally.intended[marker] = ("commit", branch)
            files = [{"path": f"s/{branch}.txt", "content": marker + "\n"}]
            args = {"full_name": repo, "branch": branch, "message": marker, "files": files}
            tool = "commit_files"
        if await self.call("write", tool, args, outage, key=marker):
            self.tally.acknowledged.add(marker)
