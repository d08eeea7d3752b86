"""A fast start over stdio: the first `initialize` and `tools/list` answered from disk.

Importing the MCP stack and building ~70 tools takes most of a second; a client waits for
all of it before it sees a tool. Yet both first answers depend only on this code, the
installed libraries, the configuration and what the client declared in `initialize`.
So `serve` (stdio) starts this front before importing anything heavy:

- The real server reads and writes pipes instead of the process's stdin and stdout; two
  threads relay between them, line by line (MCP's stdio framing).
- The first time, the relay records the server's answers to `initialize` and the first
  `tools/list` in a cache file named by a key of everything they depend on: a fingerprint
  of the code (the stat of every module of this package and of extra_tools.py, and the
  MCP libraries' installed files), the command line, the non-secret configuration
  variables, and the client's protocol version and capabilities.
- Later starts with the same key answer both at once from that file, while the server
  is still importing. `initialize` is still passed on, so the server sets up the session
  as usual; its own answer is dropped (the client already has an identical one).
  Anything else goes to the server untouched, and the first message that is not part of
  the opening (initialize, its notification, logging level, pings) ends the fast path.

- Until the server runs, a `tools/call` is offered to the early path
  (serving/early_calls.py), which answers the reads it can while the MCP framework loads;
  what it does not take is held and reaches the server, in order, when it starts reading.

Any change of code, libraries, settings or client capabilities changes the key
(opening_cache.py): the cache is never stale, only missed. Nothing secret is part of a
key or a file. The entry point starts the front only after the secrets hand-off (a
re-exec that would otherwise lose input the front had consumed), so it runs in the
process that serves.

Stdlib only: importing this module must cost nothing.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from github_mcp.serving import stdio_lines
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


def active() -> bool:
    return _FRONT is not None


def attach_early(accept: Callable[[dict[str, Any]], bool]) -> None:
    """Offer the `tools/call`s that arrive before the server runs to `accept`
    (serving/early_calls.py), those already held first."""
    if _FRONT is not None:
        _FRONT.attach(accept)


def reply(request_id: Any, body: dict[str, Any]) -> None:
    """Answer a request the server never sees (`body`: its result or error)."""
    if _FRONT is not None:
        _FRONT.reply(request_id, body)


def offer_initialize(answer: Callable[[dict[str, Any]], dict[str, Any] | None]) -> None:
    """How to answer `initialize` without the server (shipped_opening.py)."""
    if _FRONT is not None:
        _FRONT.opening.offer_initialize(answer)


def offer_listing(listing: dict[str, Any] | None) -> None:
    """The first `tools/list`'s answer without the server; None: the server answers it."""
    if _FRONT is not None:
        _FRONT.opening.offer_listing(listing)


def notify(method: str, params: dict[str, Any]) -> None:
    """A notification to the client, as the server would send it."""
    if _FRONT is not None:
        message = {"jsonrpc": "2.0", "method": method, "params": params}
        _FRONT.to_client_line(message)


def client_log_level() -> str:
    """The level the client asked for with `logging/setLevel` (seen on its way to the
    server), else the server's default."""
    return _FRONT.log_level if _FRONT is not None else "info"


def release_held() -> None:
    """The server is about to read: calls not taken early go to it, and stop offering."""
    if _FRONT is not None:
        _FRONT.release()


def finish() -> None:
    """Called when the server has stopped: relay what it wrote last, then stop."""
    if _FRONT is not None:
        _FRONT.finish()


class Front:
    def __init__(self, base: str):
        self.base = base
        self._out_lock = threading.Lock()
        self._swallow: set[str] = set()  # ids of server answers the client already has
        self._record: dict[str, Any] | None = None  # {"key", "init_id", "init", "list_id"}
        self._state_lock = threading.Lock()
        self.hits = 0
        # Calls that arrive before the server runs: offered to `_accept`, else held.
        self._early_lock = threading.Lock()
        self._server_lock = threading.Lock()
        self._accept: Callable[[dict[str, Any]], bool] | None = None
        self._held: list[bytes] = []
        self._released = False
        self._input_ended = False
        self.log_level = "info"  # the server's default until the client sets one
        self.opening = EarlyOpening(self.reply, self._swallow_answer, self._remember)

    def start(self) -> None:
        self.client_in, self.client_out = os.dup(0), os.dup(1)
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
        """Close every descriptor on the server's end of the outbound pipe (the MCP library
        keeps a private duplicate open for good), so the relay reads to EOF and stops."""
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

    def _to_client(self, data: bytes) -> None:
        with self._out_lock:
            view = memoryview(data)
            while view:
                written = os.write(self.client_out, view)
                view = view[written:]

    def _answer(self, request_id: Any, result: Any) -> None:
        self.reply(request_id, {"result": result})

    def reply(self, request_id: Any, body: dict[str, Any]) -> None:
        """A JSON-RPC answer (`body` holds its result or error) straight to the client."""
        self.to_client_line({"jsonrpc": "2.0", "id": request_id, **body})

    def to_client_line(self, message: dict[str, Any]) -> None:
        self._to_client((json.dumps(message, separators=(",", ":")) + "\n").encode())

    def _to_server_write(self, line: bytes) -> None:
        with self._server_lock:
            view = memoryview(line)
            while view:
                view = view[os.write(self._to_server, view) :]

    # -- calls before the server runs ---------------------------------------------------
    # A pipe write blocks until the server reads, so none happens under `_early_lock`,
    # and the event loop (which must go on to start the server) never writes to it.

    def attach(self, accept: Callable[[dict[str, Any]], bool]) -> None:
        with self._early_lock:
            self._accept = accept
            held, self._held = self._held, []
            self._held = [line for line in held if not self._offer(line)]

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
        """To the server; before it runs, a `tools/call` is offered or held instead."""
        if not self._released and b'"logging/setLevel"' in line:
            self._note_level(line)
        if not self._released and b'"tools/call"' in line:
            with self._early_lock:
                if not self._released:
                    if self._accept is None or not self._offer(line):
                        self._held.append(line)
                    return
        self._to_server_write(line)

    def _end_of_input(self) -> None:
        with self._early_lock:
            if not self._released:
                self._input_ended = True  # release() closes, after the held calls
                return
        with contextlib.suppress(OSError):
            os.close(self._to_server)

    # -- client -> server ---------------------------------------------------------------

    def _pump_in(self) -> None:
        opening = True
        cached: dict[str, Any] | None = None
        try:
            for line in stdio_lines.lines(self.client_in):
                message = stdio_lines.message(line) if opening else None
                if message is not None:
                    method = message.get("method")
                    if method == "initialize" and "id" in message:
                        cached = self._on_initialize(message)
                        if cached is None:
                            self.opening.on_initialize(message)
                    elif (
                        method == "tools/list"
                        and "id" in message
                        and not (message.get("params") or {}).get("cursor")
                    ):
                        opening = False
                        if cached is not None:
                            self._answer(message["id"], cached["tools_list"])
                            self.hits += 1
                            continue  # answered; the server never sees it
                        if self.opening.on_tools_list(message, line):
                            continue  # answered or waiting for its answer: not the server's
                        with self._state_lock:
                            if self._record is not None:
                                self._record["list_id"] = stdio_lines.id_key(message["id"])
                    elif method not in OPENING and not str(method).startswith("notifications/"):
                        opening = False
                self._pass_on(line)
        except OSError:
            pass
        finally:
            self._end_of_input()

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
                self._to_client(line)
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
