"""A long-lived `git cat-file --batch-command` per repository, and a bounded LRU map.

Only full object ids are ever sent, so answers can be cached by the caller for good. The
processes of all repositories together are capped (least recently used are stopped, and
start again when needed); `close_readers(root)` stops those below a directory.
"""

from __future__ import annotations

import atexit
import re
import subprocess
import threading
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

_SHA = re.compile(r"[0-9a-f]{40}")
MAX_LIVE_READERS = 24  # cat-file processes kept across all repositories (least recent go)
_CHUNK = 256  # commands written before reading answers: stays far below a pipe's buffer


class ReaderError(RuntimeError):
    """No answer from cat-file (it failed twice running, or the name was not a full object
    id): callers fall back to plain git commands."""


class LRU:
    """A thread-safe least-recently-used map bounded by the total weight of its values."""

    def __init__(self, max_weight: int):
        self.max_weight = max_weight
        self._items: OrderedDict[Any, tuple[Any, int]] = OrderedDict()
        self._weight = 0
        self._lock = threading.Lock()

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            item = self._items.get(key)
            if item is None:
                return default
            self._items.move_to_end(key)
            return item[0]

    def put(self, key: Any, value: Any, weight: int = 1) -> None:
        if weight > self.max_weight:
            return
        with self._lock:
            old = self._items.pop(key, None)
            if old is not None:
                self._weight -= old[1]
            self._items[key] = (value, weight)
            self._weight += weight
            while self._weight > self.max_weight:
                _, (_, dropped) = self._items.popitem(last=False)
                self._weight -= dropped


# --- the cat-file process ---------------------------------------------------------------


class _Dead(Exception):
    pass


def _header(out: IO[bytes]) -> tuple[str, int] | None:
    line = out.readline()
    parts = line.split()
    if len(parts) == 3:
        return parts[1].decode(), int(parts[2])
    if len(parts) == 2 and parts[1] in (b"missing", b"ambiguous"):
        return None
    raise _Dead(line)  # EOF (the process died) or an answer out of step: start afresh


def _read_infos(out: IO[bytes], count: int) -> list[tuple[str, int] | None]:
    return [_header(out) for _ in range(count)]


def _read_contents(out: IO[bytes], count: int) -> list[tuple[str, bytes] | None]:
    found: list[tuple[str, bytes] | None] = []
    for _ in range(count):
        head = _header(out)
        if head is None:
            found.append(None)
            continue
        data = out.read(head[1])
        if len(data) != head[1] or out.read(1) != b"\n":
            raise _Dead("short read")
        found.append((head[0], data))
    return found


class ObjectReader:
    """`git cat-file --batch-command` kept running for one repository; thread-safe.

    Only full object ids are sent. A process that dies is replaced on the next call (one
    retry per call). The process re-reads the pack list when an object is not found, so
    objects pushed after it started are seen."""

    def __init__(self, git_dir: Path, env: dict[str, str]):
        self.git_dir = git_dir
        self.env = env
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def infos(self, shas: list[str]) -> list[tuple[str, int] | None]:
        found: list[tuple[str, int] | None] = []
        for i in range(0, len(shas), _CHUNK):
            chunk = shas[i : i + _CHUNK]
            found += self._exchange("info", chunk, _read_infos)
        return found

    def contents(self, shas: list[str]) -> list[tuple[str, bytes] | None]:
        found: list[tuple[str, bytes] | None] = []
        for i in range(0, len(shas), _CHUNK):
            chunk = shas[i : i + _CHUNK]
            found += self._exchange("contents", chunk, _read_contents)
        return found

    def _exchange(self, command: str, shas: list[str], read: Callable[[IO[bytes], int], Any]):
        for sha in shas:
            if not _SHA.fullmatch(sha):
                raise ReaderError(f"not a full object id: {sha!r}")
        payload = "".join(f"{command} {sha}\n" for sha in shas).encode()
        started = False
        for attempt in (1, 2):
            with self._lock:
                if self._proc is None or self._proc.poll() is not None:
                    self._stop_locked()
                    self._proc = self._spawn()
                    started = True
                proc = self._proc
                assert proc.stdin is not None and proc.stdout is not None
                try:
                    proc.stdin.write(payload)
                    proc.stdin.flush()
                    result = read(proc.stdout, len(shas))
                    break
                except (OSError, ValueError, _Dead) as exc:
                    self._stop_locked()
                    if attempt == 2:
                        raise ReaderError(f"git cat-file failed in {self.git_dir}: {exc}") from exc
        # Outside our lock: making room may wait for another reader's lock.
        _REGISTRY.used(self, started)
        return result

    def _spawn(self) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            ["git", f"--git-dir={self.git_dir}", "cat-file", "--batch-command"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=self.env,
        )

    def _stop_locked(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        for stream in (proc.stdin, proc.stdout):
            try:
                if stream is not None:
                    stream.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=2)  # end of input ends cat-file
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()

    def close(self) -> None:
        """Stop the process (a later call starts a new one)."""
        with self._lock:
            self._stop_locked()
        _REGISTRY.forget(self)

    @property
    def running(self) -> bool:
        return self._proc is not None and self._proc.poll() is None


class _Registry:
    """Every running reader, least recently used first, so there are never too many."""

    def __init__(self) -> None:
        self._readers: OrderedDict[int, ObjectReader] = OrderedDict()
        self._lock = threading.Lock()

    def used(self, reader: ObjectReader, started: bool) -> None:
        victims = []
        with self._lock:
            key = id(reader)
            if key in self._readers:
                self._readers.move_to_end(key)
            elif started:
                self._readers[key] = reader
            while len(self._readers) > MAX_LIVE_READERS:
                victims.append(self._readers.popitem(last=False)[1])
        for victim in victims:
            victim.close()

    def forget(self, reader: ObjectReader) -> None:
        with self._lock:
            self._readers.pop(id(reader), None)

    def close_under(self, root: Path | None) -> int:
        with self._lock:
            readers = list(self._readers.values())
        closing = [r for r in readers if root is None or r.git_dir.is_relative_to(root)]
        for reader in closing:
            reader.close()
        return len(closing)


_REGISTRY = _Registry()
atexit.register(lambda: _REGISTRY.close_under(None))


def close_readers(root: Path | str | None = None) -> int:
    """Stop the cat-file processes of repositories under root (all of them for None)."""
    return _REGISTRY.close_under(Path(root) if root is not None else None)
