"""What the server's memory holds: tracemalloc diffs inside one HTTP server process.

Runs the server of bench/memory.py under bench/_traced_main.py (SIGUSR2 starts tracemalloc
once it is up, SIGUSR1 dumps a snapshot), then:

- `sessions`: after a warm-up (one session's calls, and a few abandoned sessions), opens N
  sessions that each initialize, make one call and are abandoned (no DELETE); prints the
  traced bytes per session and the biggest retainers by allocation site. Before each
  snapshot it waits `--settle` seconds (default: the hibernation grace period plus 5 s,
  so that idle sessions have gone to sleep as they would before any cleanup) and makes
  one call (the event store drops ended streams when it next stores one).
  `--hibernate-after 0` measures with hibernation off (the figure before it existed).
- `sessions --rss-batches B`: the same sessions without tracing, opened in B batches with
  the settle wait after each (as abandoned sessions arrive over time, so memory the
  sleeping ones freed is reused by the next ones); prints the RSS growth per session.
- `calls`: snapshots after `--warmup` calls and again after `--calls` more on one session;
  prints the growth and its biggest sites.

    python bench/memory_retainers.py sessions [--sessions 200] [--hibernate-after S]
    python bench/memory_retainers.py calls [--warmup 2000] [--calls 18000]

tracemalloc counts Python allocations only (not the allocator's free pools), so its figure
per session is a floor of what RSS shows; it is deterministic and names the retainers.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx2 as httpx
from _forge_process import ROOT, ForgeProcess
from memory import REPO, Session, rss_kb, start_server


def snapshot(pid: int, path: Path) -> tracemalloc.Snapshot:
    path.unlink(missing_ok=True)
    os.kill(pid, signal.SIGUSR1)
    deadline = time.monotonic() + 120
    while not path.exists():
        if time.monotonic() > deadline:
            raise RuntimeError("no snapshot")
        time.sleep(0.2)
    return tracemalloc.Snapshot.load(str(path)).filter_traces(
        [tracemalloc.Filter(False, tracemalloc.__file__), tracemalloc.Filter(False, "<frozen*")]
    )


def rss_per_session(pid: int, url: str, sessions: int, batches: int, settle: float) -> None:
    """Untraced: RSS growth per abandoned session, opened in batches that each settle."""
    with httpx.Client() as http:
        session = Session(http, url)
        for _ in range(200):
            session.read()
        for _ in range(20):
            Session(http, url).read()
        settled(session, settle)
        rss0 = rss_kb(pid)
        for _ in range(batches):
            for _ in range(sessions // batches):
                Session(http, url).read()
            settled(session, settle)
        rss1 = rss_kb(pid)
    opened = sessions // batches * batches
    print(
        f"sessions (untraced, {batches} batches): RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MB, "
        f"{(rss1 - rss0) / opened:.1f} KB per abandoned session ({opened})"
    )


def settled(session: Session, seconds: float) -> None:
    """Wait for idle sessions to go to sleep, then make one call."""
    if seconds:
        time.sleep(seconds)
        session.read()


def report(before: tracemalloc.Snapshot, after: tracemalloc.Snapshot, per: int, top: int) -> None:
    total = sum(s.size_diff for s in after.compare_to(before, "filename"))
    print(f"traced growth: {total / 1024:.1f} KB, {total / per / 1024:.2f} KB per unit ({per})")
    print("-- by file --")
    for stat in after.compare_to(before, "filename")[:top]:
        print(
            f"{stat.size_diff / per:9.0f} B/unit {stat.count_diff / per:7.1f} blk  "
            f"{stat.traceback[0].filename}"
        )
    print("-- by site (innermost frames) --")
    for stat in after.compare_to(before, "traceback")[:top]:
        print(f"{stat.size_diff / per:9.0f} B/unit {stat.count_diff / per:7.1f} blk")
        for frame in list(stat.traceback)[-6:]:
            print(f"        {frame.filename.split('site-packages/')[-1]}:{frame.lineno}")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["sessions", "calls"])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=2000)
    parser.add_argument("--calls", type=int, default=18000)
    parser.add_argument("--top", type=int, default=15)
    parser.add_argument("--hibernate-after", type=float, default=None, help="seconds")
    parser.add_argument("--settle", type=float, default=None, help="seconds")
    parser.add_argument("--rss-batches", type=int, default=0)
    args = parser.parse_args()
    settle = 0.0
    extra = {}
    if args.mode == "sessions":
        grace = 30.0 if args.hibernate_after is None else args.hibernate_after
        settle = args.settle if args.settle is not None else (grace + 5 if grace else 0.0)
    if args.hibernate_after is not None:
        extra["GITHUB_MCP_SESSION_HIBERNATE_AFTER_SECONDS"] = str(args.hibernate_after)
    with ForgeProcess() as forge, tempfile.TemporaryDirectory() as tmp:
        forge.seed_repo(REPO, {"README.md": "# memory bench\n" * 20})
        snap = Path(tmp) / "snap"
        proc, url = start_server(
            ROOT,
            forge,
            Path(tmp),
            str(ROOT / "bench" / "_traced_main.py"),
            BENCH_TRACEMALLOC_SNAPSHOT=str(snap),
            GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS="3600",
            **extra,
        )
        try:
            if args.rss_batches:
                rss_per_session(proc.pid, url, args.sessions, args.rss_batches, settle)
                return
            with httpx.Client() as http:
                session = Session(http, url)
                session.read()  # the first request builds the lazily imported app: not traced
                os.kill(proc.pid, signal.SIGUSR2)  # start tracing
                warm = 200 if args.mode == "sessions" else args.warmup
                for _ in range(warm):
                    session.read()
                if args.mode == "sessions":
                    for _ in range(20):
                        Session(http, url).read()
                settled(session, settle)
                before, rss0 = snapshot(proc.pid, snap), rss_kb(proc.pid)
                units = args.sessions if args.mode == "sessions" else args.calls
                for _ in range(units):
                    if args.mode == "sessions":
                        Session(http, url).read()
                    else:
                        session.read()
                settled(session, settle)
                after, rss1 = snapshot(proc.pid, snap), rss_kb(proc.pid)
        finally:
            proc.terminate()
            proc.wait(15)
    print(
        f"{args.mode}: RSS {rss0 / 1024:.1f} -> {rss1 / 1024:.1f} MB "
        f"({(rss1 - rss0) / units:.1f} KB per unit, traced run)"
    )
    report(before, after, units, args.top)


if __name__ == "__main__":
    main()
