"""A 2026-07-28 client of `main.py serve` over real pipes, for tests that talk back and forth
(tasks polled, cancelled and answered; listen streams opened and cancelled): a thread reads
every frame the server writes, in order, and a test waits for the frame it needs.

Waits are on conditions (a frame arrived), each bounded by HANG_S only to end a hang.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.stdio_session import modern_meta

HANG_S = 240.0  # bounds a hang only
TASKS = "io.modelcontextprotocol/tasks"
SUBSCRIPTION_ID = "io.modelcontextprotocol/subscriptionId"
Frame = dict[str, Any]


def meta(*, tasks: bool = True, **capabilities: Any) -> dict[str, Any]:
    """A 2026-07-28 request's `_meta`; `tasks`: it declares the Tasks extension."""
    found = modern_meta("stdio-client")
    declared = dict(capabilities)
    if tasks:
        declared["extensions"] = {TASKS: {}}
    found["io.modelcontextprotocol/clientCapabilities"] = declared
    return found


class StdioClient:
    """One `main.py serve` process and the frames it wrote (see the module docstring)."""

    def __init__(self, env: dict[str, str], stderr: Path | None = None) -> None:
        self._err = stderr.open("wb") if stderr is not None else None
        self.proc = subprocess.Popen(
            [sys.executable, "main.py", "serve"],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._err if self._err is not None else subprocess.DEVNULL,
        )
        self.frames: list[Frame] = []
        self._changed = threading.Condition()
        self._ids = itertools.count(1)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            frame = json.loads(line)  # every line on stdout must be JSON
            with self._changed:
                self.frames.append(frame)
                self._changed.notify_all()
        with self._changed:
            self.frames.append({"eof": True})
            self._changed.notify_all()

    def send(self, frame: Frame) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(frame).encode() + b"\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: Frame | None = None, **asks: Any) -> int:
        """Send a 2026-07-28 request; its id."""
        ident = next(self._ids)
        body = {**(params or {}), "_meta": meta(**asks)}
        self.send({"jsonrpc": "2.0", "id": ident, "method": method, "params": body})
        return ident

    def wait_for(self, found: Callable[[Frame], bool], what: str) -> Frame:
        """The first frame for which `found` holds, once it has arrived."""
        with self._changed:
            ok = self._changed.wait_for(
                lambda: any(found(f) for f in self.frames) or {"eof": True} in self.frames,
                timeout=HANG_S,
            )
            hit = next((f for f in self.frames if found(f)), None)
        assert ok and hit is not None, f"no {what} in {self.frames[-10:]}"
        return hit

    def answer(self, ident: int) -> Frame:
        return self.wait_for(
            lambda f: f.get("id") == ident and "method" not in f, f"answer {ident}"
        )

    def call(self, method: str, params: Frame | None = None, **asks: Any) -> Frame:
        """A request and its answer (result or error)."""
        return self.answer(self.request(method, params, **asks))

    def task(self, method: str, task_id: str, **params: Any) -> Frame:
        return self.call(method, {"taskId": task_id, **params})

    def until_status(self, task_id: str, wanted: set[str]) -> Frame:
        """tasks/get, polled until the task's status is one of `wanted`."""
        deadline = threading.Event()
        for _ in range(int(HANG_S / 0.1)):
            got = self.task("tasks/get", task_id)["result"]
            if got["status"] in wanted:
                return got
            deadline.wait(0.1)
        raise AssertionError(f"task {task_id} never reached {wanted}: {got}")

    def notifications(self, method: str) -> list[Frame]:
        with self._changed:
            return [f for f in self.frames if f.get("method") == method]

    def close(self) -> int:
        """End of input; the process's exit status."""
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.close()
            return self.proc.wait(timeout=HANG_S)
        finally:
            if self.proc.poll() is None:
                self.proc.kill()
                self.proc.wait()
            if self._err is not None:
                self._err.close()
