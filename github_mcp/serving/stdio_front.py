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

Any change of code, libraries, settings or client capabilities changes the key: the
cache is never stale, only missed. Nothing secret is part of a key or a file. The entry
point starts the front only after the secrets hand-off (a re-exec that would otherwise
lose input the front had consumed), so it runs in the process that serves.

Stdlib only: importing this module must cost nothing.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1
HANDOFF_FD_VAR = "GITHUB_MCP_SECRETS_FD"  # the secrets hand-off's descriptor (not a secret)
# Configuration that can change what the server lists: its own variables and the
# library's. Names that look secret are left out of keys (their values never matter here).
KEY_ENV_PREFIXES = ("GITHUB_", "FASTMCP_", "MCP_")
SECRET_MARKERS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PAT", "CREDENTIAL")
# Messages that may come before the first tools/list without changing its answer.
OPENING = {"notifications/initialized", "logging/setLevel", "ping"}

_FRONT: Front | None = None


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "github-mcp"


def code_fingerprint() -> str:
    """The stat (path, size, mtime) of every file whose change could change a listing."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT} {sys.version}".encode())
    package = Path(__file__).resolve().parents[1]  # all of github_mcp
    roots = [package]
    for library in ("fastmcp", "mcp", "mcp_types", "pydantic"):
        spec = importlib.util.find_spec(library)
        if spec is not None and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name} {info.st_size} {info.st_mtime_ns}\n".encode())
    extra = package.parent / "extra_tools.py"
    if extra.exists():
        info = extra.stat()
        digest.update(f"{extra} {info.st_size} {info.st_mtime_ns}".encode())
    return digest.hexdigest()


def _is_secret_name(name: str) -> bool:
    return any(marker in name.upper() for marker in SECRET_MARKERS)


def base_key(argv: list[str], environ: dict[str, str]) -> str:
    settings = sorted(
        (k, v)
        for k, v in environ.items()
        if k.startswith(KEY_ENV_PREFIXES) and k != HANDOFF_FD_VAR and not _is_secret_name(k)
    )
    dotenv = Path(".env")
    with contextlib.suppress(OSError):
        settings.append((".env", hashlib.sha256(dotenv.read_bytes()).hexdigest()))
    payload = json.dumps([code_fingerprint(), argv, os.getcwd(), settings])
    return hashlib.sha256(payload.encode()).hexdigest()


def session_key(base: str, init_params: dict[str, Any]) -> str:
    client = [init_params.get("protocolVersion"), init_params.get("capabilities") or {}]
    return hashlib.sha256((base + json.dumps(client, sort_keys=True)).encode()).hexdigest()


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


def finish() -> None:
    """Called when the server has stopped: relay what it wrote last, then stop."""
    if _FRONT is not None:
        _FRONT.finish()


def _trusted(path: Path) -> bool:
    """A cached answer is served only from a file and folder this user owns and no one
    else can write: a planted tool list would put words in the model's context."""
    for item in (path.parent, path):
        info = os.stat(item)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            return False
    return True


def _write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def _open_descriptors() -> list[int]:
    try:
        return [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        return list(range(256))


def _lines(fd: int):
    pending = b""
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            if pending:
                yield pending
            return
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for line in complete:
            yield line + b"\n"


def _message(line: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(line)
    except ValueError:
        return None
    return parsed if isinstance(parsed, dict) else None


def _id_key(value: Any) -> str:
    return json.dumps(value)


class Front:
    def __init__(self, base: str):
        self.base = base
        self._out_lock = threading.Lock()
        self._swallow: set[str] = set()  # ids of server answers the client already has
        self._record: dict[str, Any] | None = None  # {"key", "init_id", "init", "list_id"}
        self._state_lock = threading.Lock()
        self.hits = 0

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
        for fd in _open_descriptors():
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
        body = {"jsonrpc": "2.0", "id": request_id, "result": result}
        self._to_client((json.dumps(body, separators=(",", ":")) + "\n").encode())

    def _to_server_write(self, line: bytes) -> None:
        view = memoryview(line)
        while view:
            view = view[os.write(self._to_server, view) :]

    # -- client -> server ---------------------------------------------------------------

    def _pump_in(self) -> None:
        opening = True
        cached: dict[str, Any] | None = None
        try:
            for line in _lines(self.client_in):
                message = _message(line) if opening else None
                if message is not None:
                    method = message.get("method")
                    if method == "initialize" and "id" in message:
                        cached = self._on_initialize(message)
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
                        with self._state_lock:
                            if self._record is not None:
                                self._record["list_id"] = _id_key(message["id"])
                    elif method not in OPENING and not str(method).startswith("notifications/"):
                        opening = False
                self._to_server_write(line)
        except OSError:
            pass
        finally:
            with contextlib.suppress(OSError):
                os.close(self._to_server)

    def _on_initialize(self, message: dict[str, Any]) -> dict[str, Any] | None:
        params = message.get("params") or {}
        key = session_key(self.base, params if isinstance(params, dict) else {})
        path = cache_dir() / f"listing-{key}.json"
        try:
            if not _trusted(path):
                raise ValueError("not ours alone")
            entry = json.loads(path.read_text())
            if entry.get("format") != CACHE_FORMAT:
                raise ValueError("old format")
        except (OSError, ValueError):
            with self._state_lock:
                self._record = {"key": key, "init_id": _id_key(message["id"])}
            return None
        with self._state_lock:
            self._swallow.add(_id_key(message["id"]))
        self._answer(message["id"], entry["initialize"])
        return entry

    # -- server -> client ---------------------------------------------------------------

    def _pump_out(self) -> None:
        for line in _lines(self._from_server):
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
        message = _message(line)
        if message is None or "id" not in message or "method" in message:
            return False
        ident = _id_key(message["id"])
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
                entry = {
                    "format": CACHE_FORMAT,
                    "initialize": record["init"],
                    "tools_list": message["result"],
                }
                with contextlib.suppress(OSError):
                    path = cache_dir() / f"listing-{record['key']}.json"
                    _write_atomic(path, json.dumps(entry).encode())
        return False
