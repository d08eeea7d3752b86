"""The stdio front: what a client meets before the MCP server runs, and the relay to it.

`serve` (stdio) starts this front before importing anything heavy. The server then reads
and writes pipes instead of the process's stdin and stdout; threads relay between them,
line by line (MCP's stdio framing). Meanwhile:

- `initialize` and the first `tools/list` are answered from the cache file an earlier
  start recorded (opening_cache.py: a key of everything they depend on, so a cached
  answer is never stale, only missed), else from the answers shipped with the package
  (early_opening.py, shipped_opening.py), else by the server. `initialize` still reaches
  the server, which sets up the session; its own answer is then dropped.
- Every `tools/call` is offered to the direct path (direct_calls.py), which answers the
  reads it can without the MCP framework, before the server runs and after; what it does
  not take goes to the server (held, in order, until the server reads).

Nothing secret is part of a cache key or file. The entry point starts the front only
after the secrets hand-off (a re-exec that would otherwise lose input the front had
consumed), so it runs in the process that serves. Stdlib only: importing it costs nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from github_mcp.serving import request_meta, stdio_lines
from github_mcp.serving.early_opening import EarlyOpening
from github_mcp.serving.opening_cache import (
    CACHE_FORMAT,
    HANDOFF_FD_VAR,
    OPENING,
    base_key,
    cache_dir,
    session_key,
    trusted,
    write_atomic,
)
from github_mcp.serving.stdio_writer import ClientWriter

_FRONT: Front | None = None


def serves_stdio(argv: list[str]) -> bool:
    if argv[:1] != ["serve"]:
        return False
    for i, arg in enumerate(argv):
        if arg == "--transport" and argv[i + 1 : i + 2] != ["stdio"]:
            return False
        if arg.startswith("--transport=") and arg != "--transport=stdio":
            return False
    return "-h" not in argv and "--help" not in argv


def start_if_serving_stdio(argv: list[str]) -> None:
    """Called by the entry point before the heavy imports. Off unless serving stdio, off when the
    cache directory cannot be used, and off with GITHUB_MCP_FAST_START=0."""
    global _FRONT
    environ = dict(os.environ)
    if _FRONT is not None or environ.get("GITHUB_MCP_FAST_START", "1") == "0":
        return
    if not serves_stdio(argv) or HANDOFF_FD_VAR in environ:
        return  # the hand-off's descriptor unread: called out of order, stay out
    try:
        cache_dir().mkdir(mode=0o700, parents=True, exist_ok=True)
        key = base_key(argv, environ)
    except OSError:
        return
    _FRONT = Front(key)
    _FRONT.start()


def running() -> Front | None:
    """The front of this process, when one started."""
    return _FRONT


def finish() -> None:
    """Called when the server has stopped: relay what it wrote last, then stop."""
    if _FRONT is not None:
        _FRONT.finish()


class Front:
    def __init__(self, base: str):
        self.base = base
        self._swallow: set[str] = set()  # ids of server answers the client already has
        self._record: dict[str, Any] | None = None  # {"key", "init_id", "init", "list_id"}
        self._state_lock = threading.Lock()
        # Calls that arrive before the server runs: offered to `_accept`, else held.
        self._early_lock = threading.Lock()
        self._server_lock = threading.Lock()
        self._accept: Callable[[dict[str, Any]], bool] | None = None
        self._cancel: Callable[[Any], None] | None = None
        self._held: list[bytes] = []
        self._released = False
        self._input_ended = False
        # what the client asked for with logging/setLevel (seen on its way to the server)
        self.log_level = "info"  # the server's default until the client sets one
        self._in_opening = True  # until a message that is not part of it
        self._cached: dict[str, Any] | None = None  # the cached opening, when there is one
        self.opening = EarlyOpening(self.reply, self._swallow_answer, self._remember)

    def start(self) -> None:
        self.client_in, self.client_out = os.dup(0), os.dup(1)
        # direct answers never wait on a client slow to read (stdio_writer.py)
        self.writer = ClientWriter(self.client_out)
        server_in, self._to_server = os.pipe()
        self._from_server, server_out = os.pipe()
        os.dup2(server_in, 0)
        os.dup2(server_out, 1)
        os.close(server_in)
        os.close(server_out)
        self._inbound = threading.Thread(target=self._pump_in, name="stdio-in", daemon=True)
        self._outbound = threading.Thread(target=self._pump_out, name="stdio-out", daemon=True)
        self._inbound.start()
        self._outbound.start()

    def finish(self) -> None:
        """Write the direct answers still queued; close every descriptor on the server's
        end of the outbound pipe (the MCP library keeps a private duplicate open for good),
        so the relay reads to EOF and stops."""
        self.writer.finish()  # what was queued before is written first
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.flush()
        pipe = os.fstat(self._from_server)
        for fd in stdio_lines.open_descriptors():
            if fd == self._from_server:
                continue
            with contextlib.suppress(OSError):
                info = os.fstat(fd)
                if (info.st_ino, info.st_dev) == (pipe.st_ino, pipe.st_dev):
                    os.close(fd)
        self._outbound.join(timeout=5)

    # -- writing ------------------------------------------------------------------------

    def _answer(self, request_id: Any, result: Any) -> None:
        self.reply(request_id, {"result": result})

    def reply(self, request_id: Any, body: dict[str, Any]) -> None:
        """A JSON-RPC answer (`body` holds its result or error) straight to the client."""
        self.to_client_line({"jsonrpc": "2.0", "id": request_id, **body})

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """A notification to the client, as the server would send it."""
        self.to_client_line({"jsonrpc": "2.0", "method": method, "params": params})

    def to_client_line(self, message: dict[str, Any]) -> None:
        self.writer.line((json.dumps(message, separators=(",", ":")) + "\n").encode())

    def _to_server_write(self, line: bytes) -> None:
        with self._server_lock:
            view = memoryview(line)
            while view:
                view = view[os.write(self._to_server, view) :]

    # -- calls before the server runs ---------------------------------------------------
    # A pipe write blocks until the server reads, so none happens under `_early_lock`,
    # and the event loop (which must go on to start the server) never writes to it.

    def attach(
        self, accept: Callable[[dict[str, Any]], bool], cancel: Callable[[Any], None]
    ) -> None:
        with self._early_lock:
            self._accept, self._cancel = accept, cancel
            held, self._held = self._held, []
            self._held = [line for line in held if not self._offer(line)]

    def waiting_tools(self) -> set[str]:
        """The tools the calls held for now name."""
        with self._early_lock:
            held = list(self._held)
        names = set()
        for line in held:
            params = (stdio_lines.message(line) or {}).get("params")
            name = params.get("name") if isinstance(params, dict) else None
            if isinstance(name, str):
                names.add(name)
        return names

    def _remember(self, initialize: dict[str, Any], tools_list: dict[str, Any]) -> None:
        """Answers given from the shipped file: cached, so the next start gives them at once."""
        with self._state_lock:
            record, self._record = self._record, None
        if record is not None:
            self._write_cache(record["key"], initialize, tools_list)

    def _note_level(self, line: bytes) -> None:
        request = stdio_lines.message(line) or {}
        level = (
            (request.get("params") or {}).get("level")
            if request.get("method") == "logging/setLevel"
            else None
        )
        if isinstance(level, str):
            self.log_level = level

    def _swallow_answer(self, request_id: Any, answer: dict[str, Any]) -> None:
        """`answer` was given to the client: the server's is dropped, and the cache being
        recorded (when the server answers tools/list) holds this one, the same."""
        ident = stdio_lines.id_key(request_id)
        with self._state_lock:
            self._swallow.add(ident)
            if self._record is not None and self._record.get("init_id") == ident:
                self._record["init"] = answer

    def offer_stateless(
        self, kind: str, answer: Callable[[dict[str, Any]], dict[str, Any] | None]
    ) -> None:
        """How to answer 2026-revision requests of `kind` (early_opening.py); those it does
        not answer wait for the server."""
        rest = self.opening.offer_stateless(kind, answer)
        with self._early_lock:
            self._held.extend(rest)

    def release(self) -> None:
        waiting = self.opening.close()
        with self._early_lock:
            self._released = True
            held, self._held = [*waiting, *self._held], []
            close = self._input_ended
        if held or close:
            threading.Thread(target=self._flush, args=(held, close), daemon=True).start()

    def _flush(self, lines: list[bytes], close: bool) -> None:
        with contextlib.suppress(OSError):
            for line in lines:
                self._to_server_write(line)
        if close:
            with contextlib.suppress(OSError):
                os.close(self._to_server)

    def _offer(self, line: bytes) -> bool:
        message = stdio_lines.message(line)
        if message is None or message.get("method") != "tools/call" or "id" not in message:
            return False
        assert self._accept is not None
        try:
            return self._accept(message)
        except Exception:  # anything unexpected: the server answers it
            return False

    def _pass_on(self, line: bytes) -> None:
        """To the server; a `tools/call` is offered to the direct path first (and held, if
        not taken, while the server is not reading yet); a cancellation also reaches it."""
        if b'"logging/setLevel"' in line:
            self._note_level(line)
        elif b'"notifications/cancelled"' in line and self._cancel is not None:
            self._note_cancel(line)
        if b'"tools/call"' in line:
            with self._early_lock:
                taken = self._accept is not None and self._offer(line)
                if not taken and not self._released:
                    self._held.append(line)
                    return
            if taken:
                return
        self._to_server_write(line)

    def _note_cancel(self, line: bytes) -> None:
        notice = stdio_lines.message(line) or {}
        params = notice.get("params") if notice.get("method") == "notifications/cancelled" else None
        if isinstance(params, dict) and self._cancel is not None:
            self._cancel(params.get("requestId"))

    def _end_of_input(self) -> None:
        with self._early_lock:
            if not self._released:
                self._input_ended = True  # release() closes, after the held calls
                return
        with contextlib.suppress(OSError):
            os.close(self._to_server)

    # -- client -> server ---------------------------------------------------------------

    def _pump_in(self) -> None:
        try:
            for line in stdio_lines.lines(self.client_in):
                message = stdio_lines.message(line) if self._in_opening else None
                if message is not None and self._answered_at_opening(message, line):
                    continue
                self._pass_on(line)
        except OSError:
            pass
        finally:
            self._end_of_input()

    def _answered_at_opening(self, message: dict[str, Any], line: bytes) -> bool:
        """An opening message: True when it is answered here (or waits for its answer)
        and the server never sees it."""
        method, asks = message.get("method"), "id" in message
        if method == "server/discover" and asks:
            return self.opening.on_stateless("discover", message, line)
        if method == "tools/list" and asks and request_meta.names_revision(message):
            return self.opening.on_stateless("modern_list", message, line)
        if method == "initialize" and asks:
            self._cached = self._on_initialize(message)
            if self._cached is None:
                self.opening.on_initialize(message)
        elif method == "tools/list" and asks and not (message.get("params") or {}).get("cursor"):
            return self._first_list(message, line)
        elif method not in OPENING and not str(method).startswith("notifications/"):
            self._in_opening = False
        return False

    def _first_list(self, message: dict[str, Any], line: bytes) -> bool:
        self._in_opening = False
        if self._cached is not None:
            self._answer(message["id"], self._cached["tools_list"])
            return True
        if self.opening.on_tools_list(message, line):
            return True
        with self._state_lock:
            if self._record is not None:
                self._record["list_id"] = stdio_lines.id_key(message["id"])
        return False

    def _on_initialize(self, message: dict[str, Any]) -> dict[str, Any] | None:
        params = message.get("params") or {}
        key = session_key(self.base, params if isinstance(params, dict) else {})
        path = cache_dir() / f"listing-{key}.json"
        try:
            if not trusted(path):
                raise ValueError("not ours alone")
            entry = json.loads(path.read_text())
            if entry.get("format") != CACHE_FORMAT:
                raise ValueError("old format")
        except (OSError, ValueError):
            with self._state_lock:
                self._record = {"key": key, "init_id": stdio_lines.id_key(message["id"])}
            return None
        with self._state_lock:
            self._swallow.add(stdio_lines.id_key(message["id"]))
        self._answer(message["id"], entry["initialize"])
        return entry

    # -- server -> client ---------------------------------------------------------------

    def _pump_out(self) -> None:
        for line in stdio_lines.lines(self._from_server):
            with self._state_lock:
                watching = bool(self._swallow) or self._record is not None
            if watching and self._handled(line):
                continue
            try:
                self.writer.relay(line)
            except OSError:
                return

    def _handled(self, line: bytes) -> bool:
        """True when the line is an answer the client already has (dropped)."""
        message = stdio_lines.message(line)
        if message is None or "id" not in message or "method" in message:
            return False
        ident = stdio_lines.id_key(message["id"])
        with self._state_lock:
            if ident in self._swallow:
                self._swallow.discard(ident)
                return True
            record = self._record
            if record is None or "result" not in message:
                return False
            if ident == record.get("init_id"):
                record["init"] = message["result"]
            elif ident == record.get("list_id") and "init" in record:
                self._record = None
                self._write_cache(record["key"], record["init"], message["result"])
        return False

    def _write_cache(self, key: str, initialize: Any, tools_list: Any) -> None:
        entry = {"format": CACHE_FORMAT, "initialize": initialize, "tools_list": tools_list}
        with contextlib.suppress(OSError):
            write_atomic(cache_dir() / f"listing-{key}.json", json.dumps(entry).encode())
