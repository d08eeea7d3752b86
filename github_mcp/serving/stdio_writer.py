"""Writing to the client's stdout for the stdio front: whole lines, in order, never
interleaved, and without blocking the event loop on a client slow to read. Stdlib only.

Two kinds of writer share the pipe:
- `relay` (the thread relaying the server's lines): a blocking write under the lock;
- `line` (direct answers and the opening's, from the event loop or the reading thread):
  written at once when nothing is waiting and the pipe has room, through a private
  non-blocking open of the same pipe (its own file description: the flag never reaches
  a terminal or a parent's descriptor); else queued for the writer thread. A line the
  pipe takes only part of is finished by that thread, which holds the lock until then.

Writing from the caller's thread saves a hand-off to another thread per answer: most of
the per-call latency a thread hop costs under the GIL.
"""

from __future__ import annotations

import contextlib
import os
import queue
import stat
import threading


class ClientWriter:
    def __init__(self, fd: int) -> None:
        self.fd = fd
        self._lock = threading.Lock()  # held for the whole of one line
        self._queue: queue.SimpleQueue[tuple[bytes, bool]] = queue.SimpleQueue()
        self._pending = 0  # lines queued, not yet written: later lines queue behind them
        self._pending_lock = threading.Lock()
        self._direct = _nonblocking_twin(fd)
        self._thread = threading.Thread(target=self._drain, name="stdio-answers", daemon=True)
        self._thread.start()

    def line(self, data: bytes) -> None:
        """One line, written now when it can be without blocking, else queued in order."""
        if self._direct is None or self._pending or not self._lock.acquire(blocking=False):
            self._enqueue(data, locked=False)
            return
        try:
            written = _write_some(self._direct, data)
        except OSError:  # the client is gone: nothing more reaches it
            self._lock.release()
            return
        if written == len(data):
            self._lock.release()
        else:  # the thread writes the rest and releases the lock (any thread may)
            self._enqueue(data[written:], locked=True)

    def relay(self, data: bytes) -> None:
        """A line of the server's, written in full (blocking) between the direct ones."""
        with self._lock:
            _write_all(self.fd, data)

    def finish(self, timeout: float = 5) -> None:
        """Write what is queued, then stop the thread."""
        self._queue.put((b"", False))
        self._thread.join(timeout=timeout)
        if self._direct is not None:
            with contextlib.suppress(OSError):
                os.close(self._direct)

    def _enqueue(self, data: bytes, *, locked: bool) -> None:
        with self._pending_lock:
            self._pending += 1
        self._queue.put((data, locked))

    def _drain(self) -> None:
        broken = False
        while True:
            data, locked = self._queue.get()
            if not data and not locked:
                return
            if not locked:
                self._lock.acquire()
            try:
                if not broken:
                    _write_all(self.fd, data)
            except OSError:
                broken = True  # keep draining (and releasing the lock) without writing
            finally:
                self._lock.release()
                with self._pending_lock:
                    self._pending -= 1


def _nonblocking_twin(fd: int) -> int | None:
    """A second, non-blocking file description of the pipe `fd` writes to; None when
    `fd` is not a pipe (a file or a terminal keeps every write on the thread)."""
    try:
        if not stat.S_ISFIFO(os.fstat(fd).st_mode):
            return None
        return os.open(f"/proc/self/fd/{fd}", os.O_WRONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None


def _write_some(fd: int, data: bytes) -> int:
    """As much of `data` as the pipe takes now."""
    view, written = memoryview(data), 0
    while written < len(data):
        try:
            written += os.write(fd, view[written:])
        except BlockingIOError:
            break
    return written


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]
