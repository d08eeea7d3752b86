"""Run main.py ready for tracemalloc: SIGUSR2 starts tracing, SIGUSR1 writes a snapshot
(after a full collection) to the path in BENCH_TRACEMALLOC_SNAPSHOT. Used by
bench/memory_retainers.py, which starts tracing once the server answers /healthz: tracing
the start-up imports too took minutes on a loaded machine, and what start-up allocates
is not what a session or a call retains."""

from __future__ import annotations

import gc
import os
import runpy
import signal
import sys
import tracemalloc
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _start(_signum: int, _frame: object) -> None:
    if not tracemalloc.is_tracing():
        tracemalloc.start(int(os.environ.get("BENCH_TRACEMALLOC_FRAMES", "12")))


def _dump(_signum: int, _frame: object) -> None:
    gc.collect()
    path = os.environ["BENCH_TRACEMALLOC_SNAPSHOT"]
    tracemalloc.take_snapshot().dump(path + ".part")
    os.replace(path + ".part", path)


if __name__ == "__main__":
    signal.signal(signal.SIGUSR2, _start)
    signal.signal(signal.SIGUSR1, _dump)
    sys.path.insert(0, str(ROOT))
    sys.argv = [str(ROOT / "main.py"), *sys.argv[1:]]
    runpy.run_path(str(ROOT / "main.py"), run_name="__main__")
