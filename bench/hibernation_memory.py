"""What one idle streamable-HTTP session costs the server, awake and asleep (hibernated):
the figures docs/DEPLOY.md and the session settings quote.

Starts the sandbox forge and, twice, `main.py serve --transport http` under
bench/_traced_main.py (tracemalloc started once the server answers): once with
hibernation off (sessions stay awake), once with sessions put to sleep after
--hibernate-after seconds. Each time, after a warm-up (one session's calls and a few
sessions left idle, asleep in the second run), a snapshot; then N sessions (protocol
2025-11-25) each initialize and make one read and are left alone; once they are idle
(all asleep, as the status page counts them, in the second run), another snapshot.

Each figure is the traced Python allocations per session between the two snapshots
(tracemalloc counts Python objects, not the allocator's free pools, so it is a floor of
what RSS shows); the same two runs again without tracing give the RSS growth per session
(tracing's own bookkeeping would inflate it).

    python bench/hibernation_memory.py [--sessions 200] [--hibernate-after 5]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx2 as httpx
from _forge_process import ROOT, ForgeProcess
from memory import REPO, TOKEN, Session, rss_kb, start_server
from memory_retainers import snapshot


def asleep(url: str) -> int:
    page = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60)
    found = re.search(r'id="sessions-asleep">(\d+)<', page.text)
    assert found, "the status page lost its asleep-session count"
    return int(found.group(1))


def traced(pid: int, path: Path) -> int:
    return sum(stat.size for stat in snapshot(pid, path).statistics("filename"))


def measure(forge: ForgeProcess, tmp: Path, sessions: int, hibernate: float, trace: bool) -> float:
    """KB per idle session, with sessions put to sleep after `hibernate` seconds (0:
    never, so they stay awake): traced Python allocations, or (`trace` off) RSS."""
    tmp.mkdir(parents=True, exist_ok=True)
    snap = tmp / "snap"
    proc, url = start_server(
        ROOT,
        forge,
        tmp,
        str(ROOT / "bench" / "_traced_main.py"),
        BENCH_TRACEMALLOC_SNAPSHOT=str(snap),
        GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS="3600",
        GITHUB_MCP_SESSION_HIBERNATE_AFTER_SECONDS=str(hibernate),
    )

    def all_asleep(count: int) -> None:
        deadline = time.monotonic() + hibernate + 600
        while hibernate and asleep(url) < count:
            assert time.monotonic() < deadline, "sessions never slept"
            time.sleep(1)

    try:
        with httpx.Client() as http:
            first = Session(http, url)
            first.read()  # the first request builds the lazily imported app: not traced
            if trace:
                os.kill(proc.pid, signal.SIGUSR2)  # start tracing
            for _ in range(200):
                first.read()
            warm = [Session(http, url) for _ in range(20)]
            for session in warm:
                session.read()
            all_asleep(len(warm) + 1)
            base = traced(proc.pid, snap) if trace else rss_kb(proc.pid) * 1024
            with ThreadPoolExecutor(8) as pool:
                list(pool.map(lambda _: Session(http, url).read(), range(sessions)))
            all_asleep(len(warm) + 1 + sessions)
            after = traced(proc.pid, snap) if trace else rss_kb(proc.pid) * 1024
    finally:
        proc.terminate()
        proc.wait(15)
    return (after - base) / sessions / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--hibernate-after", type=float, default=5.0)
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    figures = {}
    with ForgeProcess() as forge, tempfile.TemporaryDirectory() as tmp:
        forge.seed_repo(REPO, {"README.md": "# memory bench\n" * 20})
        for trace in (True, False):
            for state, hibernate in (("awake", 0.0), ("asleep", args.hibernate_after)):
                where = Path(tmp) / f"{state}-{trace}"
                figures[state, trace] = measure(forge, where, args.sessions, hibernate, trace)
    print(
        f"{args.sessions} idle sessions (2025-11-25, one read each), per session: "
        f"awake {figures['awake', True]:.1f} KB, asleep {figures['asleep', True]:.1f} KB "
        f"(tracemalloc); RSS growth untraced: awake {figures['awake', False]:.1f} KB, "
        f"asleep {figures['asleep', False]:.1f} KB"
    )
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
