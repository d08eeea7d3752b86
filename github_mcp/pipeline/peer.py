"""The client of one tool call, whatever carries it: who it is, what it can receive while
the call runs, and how to reach it.

Every transport hands the call seam (seam.py) a `Peer`: the stdio server its own
(serving/stdio_server.py), the HTTP server one built from the MCP framework's request
(serving/framework_peer.py), a test or a resource read the default below. The pipeline
asks the peer, never the transport, so a step cannot depend on which way a call came.

The defaults describe a caller that can receive nothing mid-call: no progress, no log,
no question for its human.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

from github_mcp.kernel.principal import PROCESS, Principal
from github_mcp.pipeline.views import View

Transport = Literal["stdio", "http", "memory"]
Action = Literal["accept", "decline", "cancel"]


@dataclass(frozen=True)
class Elicitation:
    """Which elicitation modes the client declared (none: it cannot ask its human)."""

    form: bool = False
    url: bool = False

    @classmethod
    def of(cls, capability: Any) -> Elicitation:
        """From the `elicitation` client capability as sent on the wire: an empty object
        means form, its only mode before URL mode existed."""
        if not isinstance(capability, dict):
            return NO_ELICITATION
        url = isinstance(capability.get("url"), dict)
        return cls(form=isinstance(capability.get("form"), dict) or not url, url=url)


NO_ELICITATION = Elicitation()


@dataclass(frozen=True)
class InputRequired:
    """The 2026-07-28 revision's answer when a call needs the human: the questions travel
    back as the call's result, keyed; the client asks and retries with the answers."""

    requests: dict[str, dict[str, Any]]  # key -> {"method": "elicitation/create", "params"}

    def wire(self) -> dict[str, Any]:
        return {"resultType": "input_required", "inputRequests": self.requests}


@dataclass(frozen=True)
class Answer:
    """The client's answer to a question (an elicitation result)."""

    action: Action
    content: dict[str, Any] | None = None

    @classmethod
    def of(cls, raw: Any) -> Answer:
        if isinstance(raw, dict):
            action = raw.get("action")
            content = raw.get("content")
        else:  # the framework's result model
            action = getattr(raw, "action", None)
            content = getattr(raw, "content", None)
        known: Action = action if action in ("accept", "decline") else "cancel"
        return cls(known, content if isinstance(content, dict) else None)


class Peer:
    """A caller that can receive nothing mid-call (see the module docstring)."""

    transport: Transport = "memory"
    # a 2026-07-28 request: no requests to the client mid-call, questions as InputRequired
    modern: bool = False
    elicitation: Elicitation = NO_ELICITATION
    shows_cards: bool = False  # declared the MCP Apps extension (io.modelcontextprotocol/ui)

    def __init__(
        self,
        view: View,
        *,
        principal: Principal = PROCESS,
        session: str | None = None,
        meta: dict[str, Any] | None = None,
        order: CallOrder | None = None,
    ) -> None:
        self.view = view
        self.principal = principal
        # the server-issued session this call belongs to (approvals and reads are per
        # session); None: the process's one client (stdio) or nothing identifies it
        self.session = session
        self.meta = meta or {}  # the request's _meta (idempotency key, progress token…)
        self.order = order or CallOrder()

    @property
    def input_responses(self) -> dict[str, Answer]:
        """A 2026-07-28 retry's answers to the questions its first try returned."""
        return {}

    @property
    def enabled_toolsets(self) -> set[str]:
        """The toolsets this client's session added to its list (enable_toolset)."""
        return set()

    @property
    def keeps_session(self) -> bool:
        """Whether the server keeps a session for this client that it can list more tools
        for (and tell with tools/list_changed): stdio, or HTTP on a handshake revision.
        A 2026-07-28 request stands alone, with nothing to remember an enabled toolset."""
        return False

    @property
    def host_origin(self) -> str | None:
        """The web origin hosting a card, when the client said (the card's trust)."""
        return None

    def base_url(self) -> str | None:
        """This server's address as the client reached it (approval links over HTTP)."""
        return None

    async def progress(self, done: float, total: float | None, message: str) -> None:
        return None

    async def log(self, level: str, message: str, call_id: str) -> None:
        return None

    async def ask_form(self, message: str, schema: dict[str, Any]) -> Answer:
        raise NotImplementedError("this client cannot be asked")

    async def ask_url(self, message: str, url: str, elicitation_id: str) -> Answer | None:
        """None when the connection cannot carry the question."""
        return None

    async def url_done(self, elicitation_id: str) -> None:
        return None

    async def enable_toolset(self, toolset: str) -> bool:
        """Add a toolset to the session's list and tell the client; False when this
        client has no session to keep it in."""
        return False


@dataclass
class CallOrder:
    """Calls from one client take effect in the order they were sent.

    A call that changes something (a write, an approval, a command) waits for every
    earlier call to finish, and later calls wait for it; reads between two such calls run
    side by side. `enter` is synchronous, so a transport that takes calls in the order it
    reads them keeps that order whatever each call awaits later.
    """

    _barrier: asyncio.Future[None] | None = None
    _since: list[asyncio.Future[None]] = field(default_factory=list)

    def enter(self, changes: bool) -> tuple[list[asyncio.Future[None]], asyncio.Future[None]]:
        """(what this call waits for, the future it completes when done)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        ahead = [f for f in (self._barrier,) if f is not None and not f.done()]
        if changes:
            ahead += [f for f in self._since if not f.done()]
            self._barrier, self._since = done, []
        else:
            self._since = [f for f in self._since if not f.done()]
            self._since.append(done)
        return ahead, done


def finished(done: asyncio.Future[None]) -> None:
    if not done.done():
        done.set_result(None)
