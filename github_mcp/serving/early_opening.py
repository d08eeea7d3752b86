"""On a start with no cached opening, `initialize` and the first `tools/list` answered from
the answers shipped with the package (shipped_opening.py) instead of by the server.

The stdio front calls `on_initialize` and `on_tools_list` from its reading thread; the
serving loop offers the answers as soon as it has them (`offer_initialize` once the
settings are read, `offer_listing` once the tools are registered). A request that comes
before its answer is ready waits for it (the server would be slower still); a request the
shipped answers do not cover (`None`) goes to the server. `initialize` always reaches the
server too, which sets up the session; its own answer is then dropped.

Stdlib only, like the front.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

Reply = Callable[[Any, dict[str, Any]], None]


class EarlyOpening:
    def __init__(
        self,
        reply: Reply,
        swallow: Callable[[Any, dict[str, Any]], None],
        remember: Callable[[dict[str, Any], dict[str, Any]], None],
    ) -> None:
        self._reply = reply
        self._swallow = swallow  # the server's own answer to this request is dropped
        self._remember = remember  # both answers, for the next start's cache
        self._init_answer: dict[str, Any] | None = None
        self._lock = threading.Lock()
        self._initialize: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
        self._pending_init: dict[str, Any] | None = None
        self._answered_init = False
        self._listing: dict[str, Any] | None = None
        self._listing_known = False
        self._held_list: tuple[Any, bytes] | None = None
        self._closed = False
        # The 2026 revision has no handshake: `server/discover` and each `tools/list` stand
        # alone. Each kind's answer, once offered; requests waiting for one.
        self._stateless: dict[str, Callable[[dict[str, Any]], dict[str, Any] | None]] = {}
        self._waiting: list[tuple[str, dict[str, Any], bytes]] = []

    # -- the front's reading thread -------------------------------------------------

    def on_initialize(self, message: dict[str, Any]) -> None:
        with self._lock:
            if self._closed:
                return
            if self._initialize is None:
                self._pending_init = message
            else:
                self._answer_initialize(message)

    def on_tools_list(self, message: dict[str, Any], line: bytes) -> bool:
        """True when this first tools/list is answered here or waits for its answer."""
        with self._lock:
            if self._closed or not self._answered_init:
                return False
            if not self._listing_known:
                self._held_list = (message["id"], line)
                return True
            if self._listing is None:
                return False
            self._answer_listing(message["id"], self._listing)
            return True

    def on_stateless(self, kind: str, message: dict[str, Any], line: bytes) -> bool:
        """A 2026-revision request of `kind`: True when answered here or waiting."""
        with self._lock:
            if self._closed:
                return False
            if kind not in self._stateless:
                self._waiting.append((kind, message, line))
                return True
            return self._answer_stateless(kind, message)

    # -- the serving loop -----------------------------------------------------------

    def offer_stateless(
        self, kind: str, answer: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> list[bytes]:
        """How to answer requests of `kind`; returns the waiting ones it does not answer
        (for the server)."""
        with self._lock:
            self._stateless[kind] = answer
            mine = [w for w in self._waiting if w[0] == kind]
            self._waiting = [w for w in self._waiting if w[0] != kind]
            return [line for _, message, line in mine if not self._answer_stateless(kind, message)]

    def offer_initialize(self, answer: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
        with self._lock:
            self._initialize = answer
            pending, self._pending_init = self._pending_init, None
            if pending is not None and not self._closed:
                self._answer_initialize(pending)

    def offer_listing(self, listing: dict[str, Any] | None) -> None:
        with self._lock:
            self._listing, self._listing_known = listing, True
            if self._held_list is not None and listing is not None:
                request_id, _ = self._held_list
                self._held_list = None
                self._answer_listing(request_id, listing)

    def close(self) -> list[bytes]:
        """The server reads from now on: requests still waiting go to it."""
        with self._lock:
            self._closed = True
            held, self._held_list = self._held_list, None
            waiting, self._waiting = self._waiting, []
        return ([held[1]] if held is not None else []) + [line for _, _, line in waiting]

    def _answer_stateless(self, kind: str, message: dict[str, Any]) -> bool:
        params = message.get("params")
        answer = self._stateless[kind](params) if isinstance(params, dict) else None
        if answer is not None:
            self._reply(message["id"], {"result": answer})
        return answer is not None

    def _answer_initialize(self, message: dict[str, Any]) -> None:
        assert self._initialize is not None
        params = message.get("params")
        answer = self._initialize(params) if isinstance(params, dict) else None
        if answer is None:
            return
        self._swallow(message["id"], answer)
        self._reply(message["id"], {"result": answer})
        self._answered_init = True
        self._init_answer = answer

    def _answer_listing(self, request_id: Any, listing: dict[str, Any]) -> None:
        self._reply(request_id, {"result": listing})
        assert self._init_answer is not None
        self._remember(self._init_answer, listing)
