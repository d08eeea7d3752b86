"""The client of a call over stdio, as the call seam sees it (pipeline/peer.py).

Over stdio the process serves one client: its approvals, reads and the toolsets it
added to its list belong to the process (no session id). What it can receive follows its
revision: a handshake client's capabilities from `initialize` and the level it set with
`logging/setLevel`; a 2026-07-28 request's own capabilities and log level from its
`_meta`, and list changes only on its `subscriptions/listen` streams.

A call run as a task (stdio_tasks.py) has a TaskPeer: nothing is sent while it runs; its
questions become the task's input requests and its progress the task's status message.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from github_mcp.apps.listing import declares_ui
from github_mcp.pipeline.call_scope import LOGGER_NAME
from github_mcp.pipeline.peer import Answer, Elicitation, Peer
from github_mcp.serving import request_meta

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import CallOrder
    from github_mcp.pipeline.views import View

Notify = Callable[[str, dict[str, Any]], None]
Ask = Callable[[str, dict[str, Any]], Awaitable[Any]]  # a request to the client, its result
Publish = Callable[[str], None]  # an event for the client's listen streams
TOOLS_CHANGED = "notifications/tools/list_changed"


def _no_event(method: str) -> None:
    return None


class StdioPeer(Peer):
    transport = "stdio"

    def __init__(
        self,
        view: View,
        *,
        meta: dict[str, Any],
        answers: Any,
        asks: request_meta.RequestMeta,
        capabilities: dict[str, Any],
        session_level: str,
        enabled: set[str],
        order: CallOrder,
        notify: Notify,
        ask: Ask,
        publish: Publish = _no_event,
    ) -> None:
        super().__init__(view, meta=meta, order=order)
        self.asks = asks
        self._answers = answers if isinstance(answers, dict) else {}
        self.modern = asks.modern
        self.elicitation = Elicitation.of(capabilities.get("elicitation"))
        self.shows_cards = declares_ui(capabilities)
        self._session_level = session_level
        self._enabled = enabled
        self._notify = notify
        self._ask = ask
        self._publish = publish

    @property
    def input_responses(self) -> dict[str, Answer]:
        return {str(key): Answer.of(value) for key, value in self._answers.items()}

    @property
    def enabled_toolsets(self) -> set[str]:
        return self._enabled

    @property
    def keeps_session(self) -> bool:
        return True  # the process is the client's session, whatever its revision

    async def progress(self, done: float, total: float | None, message: str) -> None:
        token = self.asks.progress_token
        if token is None:
            return
        params: dict[str, Any] = {"progressToken": token, "progress": done}
        if total is not None:
            params["total"] = total
        if message:
            params["message"] = message
        self._notify("notifications/progress", params)

    async def log(self, level: str, message: str, call_id: str) -> None:
        if not request_meta.sends_log(self.asks, level, self._session_level):
            return
        data = {"msg": message, "extra": {"call_id": call_id}}
        self._notify("notifications/message", {"level": level, "logger": LOGGER_NAME, "data": data})

    async def ask_form(self, message: str, schema: dict[str, Any]) -> Answer:
        params = {"mode": "form", "message": message, "requestedSchema": schema}
        return Answer.of(await self._ask("elicitation/create", params))

    async def ask_url(self, message: str, url: str, elicitation_id: str) -> Answer | None:
        params = {"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id}
        return Answer.of(await self._ask("elicitation/create", params))

    async def url_done(self, elicitation_id: str) -> None:
        self._notify("notifications/elicitation/complete", {"elicitationId": elicitation_id})

    async def enable_toolset(self, toolset: str) -> bool:
        self._enabled.add(toolset)
        if self.modern:
            self._publish(TOOLS_CHANGED)  # told on its listen streams, if it opened any
        else:
            self._notify(TOOLS_CHANGED, {})
        return True


class TaskPeer(StdioPeer):
    """The client of a call run as a task (see the module docstring): like the HTTP
    server's task peer, it can be asked in either elicitation mode, through the task."""

    def __init__(self, view: View, *, on_progress: Callable[[str], None], **kwargs: Any) -> None:
        super().__init__(view, **kwargs)
        self.modern = True
        self.elicitation = Elicitation(form=True, url=True)
        self.shows_cards = False
        self._on_progress = on_progress

    async def progress(self, done: float, total: float | None, message: str) -> None:
        if message:
            self._on_progress(message)

    async def log(self, level: str, message: str, call_id: str) -> None:
        return None  # no request is open to carry it
