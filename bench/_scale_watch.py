"""Where bench/scale.py's time goes: CPU seconds per process (the bench's own client,
nginx, each replica across its restarts, Redis, the forge, and the rest of the machine)
sampled from /proc, the client's own event-loop lag (a client that cannot keep up
measures itself), and the replicas' own handling time per call from their log lines
(`tool_call_success` duration_ms: from the call's start in the pipeline to its answer,
so without the HTTP and session layers, nginx and the client). Not a benchmark itself.
"""

from __future__ import annotations

import asyncio
import json
import os
import threading
import time
from collections import defaultdict
from collections.abc import Callable, Iterable
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from _forge_process import ForgeProcess
    from _scale_client import Outage, Tally

    from tests.replicas.cluster import Cluster, Replica
    from tests.replicas.test_shipped_nginx import ShippedNginx

TICK = os.sysconf("SC_CLK_TCK")
SAMPLE_S = 0.25


def _ticks(pid: int, reaped: bool) -> int | None:
    """User + system CPU ticks of `pid` (all its threads; with `reaped`, also of its
    children that exited, as the forge's git commands), None once it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2 :].split()
    own = int(fields[11]) + int(fields[12])  # utime, stime (fields 14 and 15)
    return own + (int(fields[13]) + int(fields[14]) if reaped else 0)


def children(pid: int) -> list[int]:
    """`pid`'s direct children (nginx's workers)."""
    found: list[int] = []
    try:
        for task in os.listdir(f"/proc/{pid}/task"):
            text = Path(f"/proc/{pid}/task/{task}/children").read_text()
            found += [int(p) for p in text.split()]
    except OSError:
        pass
    return found


def _machine() -> tuple[int, int]:
    """(busy, total) ticks of every CPU of the machine."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = values[3] + values[4]  # idle, iowait
    total = sum(values[:8])
    return total - idle, total


class CpuWatch:
    """A thread sampling the CPU ticks of each named component's processes. A process that
    exits (a SIGKILLed replica) keeps the ticks last seen for it (up to SAMPLE_S lost)."""

    def __init__(self, components: dict[str, Callable[[], list[int]]], reaped: set[str]) -> None:
        self.components, self.reaped = components, reaped
        self.seen: dict[str, dict[int, int]] = {name: {} for name in components}
        self.marks: dict[str, tuple[dict[str, float], tuple[int, int]]] = {}
        self.busy_samples: list[tuple[float, float]] = []  # (monotonic, machine busy 0..1)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="cpu-watch", daemon=True)

    def start(self) -> None:
        self._sample()
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self._sample()

    def _run(self) -> None:
        last = _machine()
        while not self._stop.wait(SAMPLE_S):
            self._sample()
            now = _machine()
            total = now[1] - last[1]
            if total > 0:
                self.busy_samples.append((time.monotonic(), (now[0] - last[0]) / total))
            last = now

    def _sample(self) -> None:
        for name, pids in self.components.items():
            for pid in pids():
                ticks = _ticks(pid, name in self.reaped)
                if ticks is not None:
                    self.seen[name][pid] = ticks

    def seconds(self) -> dict[str, float]:
        return {name: sum(per.values()) / TICK for name, per in self.seen.items()}

    def mark(self, label: str) -> None:
        """Remember the CPU used so far (and the machine's), to report a window's share."""
        self._sample()
        self.marks[label] = (self.seconds(), _machine())

    def window(self, start: str, end: str) -> list[str]:
        """Lines: each component's CPU seconds between two marks, as a share of the
        machine's cores, and what the rest of the machine used meanwhile."""
        (first, m0), (last, m1) = self.marks[start], self.marks[end]
        cores = os.cpu_count() or 1
        wall = (m1[1] - m0[1]) / TICK / cores
        used = {name: last[name] - first.get(name, 0.0) for name in last}
        ours = sum(used.values())
        machine = (m1[0] - m0[0]) / TICK
        lines = [f"CPU over the {wall:.0f} s run ({cores} cores = {wall * cores:.0f} CPU s):"]
        for name, seconds in sorted(used.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {name:<16} {seconds:7.1f} CPU s  {seconds / wall:6.1%} of a core")
        others = max(0.0, machine - ours)
        name = "(not the bench)"
        lines.append(f"  {name:<16} {others:7.1f} CPU s  {others / wall:6.1%} of a core")
        lines.append(
            f"  machine busy {machine / (wall * cores) * 100:.0f}% of its {cores} cores; "
            f"{self.saturated_share():.0f}% of {SAMPLE_S:g} s samples over 95% busy"
        )
        return lines

    def saturated_share(self, during: Callable[[float], bool] = lambda _t: True) -> float:
        picked = [busy for at, busy in self.busy_samples if during(at)]
        return 100 * sum(1 for b in picked if b > 0.95) / len(picked) if picked else 0.0


class LoopLag:
    """How late the client's event loop wakes from a 50 ms sleep: time every call's
    figure also contains when the client's own process is the bottleneck."""

    def __init__(self) -> None:
        self.lags_ms: list[float] = []
        self._task: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        while True:
            began = time.monotonic()
            await asyncio.sleep(0.05)
            self.lags_ms.append((time.monotonic() - began - 0.05) * 1000)

    def stop(self) -> None:
        if self._task is not None:
            self._task.cancel()


def server_durations(
    logs: Iterable[Path], kinds: dict[str, str], offset: float
) -> dict[str, list[tuple[float, float]]]:
    """The replicas' own duration_ms of each successful call, by the bench's kind of it:
    (when it ended, on the monotonic clock (`offset` = wall - monotonic), ms)."""
    found: dict[str, list[tuple[float, float]]] = defaultdict(list)
    for log in logs:
        try:
            lines = log.read_text(errors="replace").splitlines()
        except OSError:
            continue
        for line in lines:
            if '"tool_call_success"' not in line:
                continue
            try:
                fields = json.loads(line)
            except ValueError:
                continue
            kind = kinds.get(str(fields.get("tool")))
            ms, ts = fields.get("duration_ms"), fields.get("ts")
            if kind is not None and isinstance(ms, int | float) and isinstance(ts, int | float):
                found[kind].append((float(ts) - offset, float(ms)))
    return found


SETTLE_S = 5.0  # after a restarted replica is ready (app built), still "around a kill"


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def spread(values: list[float]) -> str:
    if not values:
        return "n=0"
    return (
        f"n={len(values):<6} p50 {percentile(values, 50):7.1f} ms   "
        f"p99 {percentile(values, 99):7.1f} ms   max {max(values):7.1f} ms"
    )


def latency_lines(
    calls: list[tuple[str, float, float, int]],
    windows: list[tuple[float, float]],
    server: dict[str, list[tuple[float, float]]],
    kinds: tuple[str, ...],
) -> list[str]:
    """The ok calls split: steady state (first try, clear of every kill window) and the
    rest (overlapping a window from SIGKILL to SETTLE_S after the replica is ready, or
    retried), and the replicas' own handling time."""

    def near_kill(began: float, ended: float) -> bool:
        return any(began < end and ended > start for start, end in windows)

    lines = [
        f"ok calls by when they ran (a kill window: from SIGKILL to {SETTLE_S:g} s after "
        "the replica is ready again; every figure from the first try's request to the answer):"
    ]
    for kind in kinds:
        mine = [(b, e, n) for k, b, e, n in calls if k == kind]
        steady = [(e - b) * 1000 for b, e, n in mine if n == 1 and not near_kill(b, e)]
        rest = [(e - b) * 1000 for b, e, n in mine if n > 1 or near_kill(b, e)]
        retried = sum(1 for k, _b, _e, n in calls if k == kind and n > 1)
        lines.append(f"  steady  {kind:<8} {spread(steady)}")
        lines.append(f"  kills   {kind:<8} {spread(rest)}   ({retried} retried)")
    lines.append("the replicas' own time for ok calls (their logs: pipeline start to answer):")
    for kind in kinds:
        own = server.get(kind, [])
        steady = [ms for end, ms in own if not near_kill(end - ms / 1000, end)]
        rest = [ms for end, ms in own if near_kill(end - ms / 1000, end)]
        lines.append(f"  steady  {kind:<8} {spread(steady)}")
        lines.append(f"  kills   {kind:<8} {spread(rest)}")
    return lines


def nginx_lines(
    log: Path,
    windows: list[tuple[float, float]],
    offset: float,
    since: float,
    starting: list[tuple[int, float, float]],
) -> list[str]:
    """nginx's own time for each POST it proxied (request read to response sent) since
    `since` (monotonic: the sessions' opening is not counted), steady and in kill
    windows, and how many went to a second replica after the first failed; and the POSTs
    a restarted replica took while its app was still being built (`starting`: its port,
    when it answered /healthz, when /readyz), which waited for the app."""
    steady: list[float] = []
    near: list[float] = []
    waited: list[float] = []
    moved = 0
    try:
        lines = log.read_text(errors="replace").splitlines()
    except OSError:
        return [f"no nginx timing log at {log}"]
    for line in lines:
        parts = line.split(" ", 4)
        if len(parts) < 5 or parts[1] != "POST":
            continue
        try:
            ended, took = float(parts[0]) - offset, float(parts[3]) * 1000
        except ValueError:
            continue
        began = ended - took / 1000
        if began < since:
            continue
        upstreams = parts[4].split('"')[1]  # "$upstream_addr": a list when retried
        moved += "," in upstreams
        in_window = any(began < end and ended > start for start, end in windows)
        (near if in_window else steady).append(took)
        last = upstreams.split(",")[-1].strip()
        if any(
            last == f"127.0.0.1:{port}" and began < ready and ended > healthy
            for port, healthy, ready in starting
        ):
            waited.append(took)
    return [
        "nginx's own time for every POST (request read to last byte sent; its access log):",
        f"  steady  {'POST':<8} {spread(steady)}",
        f"  kills   {'POST':<8} {spread(near)}   ({moved} passed to a second replica)",
        f"  sent to a restarted replica before its app was built: {spread(waited)}",
    ]


KINDS = {"get_file_contents": "read", "comment_on_issue": "write", "commit_files": "write"}
KINDS |= {tool: "listing" for tool in ("list_issues", "list_branches", "list_commits")}


# The bench's one addition to the shipped config: an access log with nginx's timings.
TIMING_LOG = """  log_format scale '$msec $request_method $status $request_time "$upstream_addr" '
    '"$upstream_status" "$upstream_response_time"';
  access_log {log} scale;
"""


def diagnose(
    tally: Tally,
    outage: Outage,
    lag: LoopLag,
    watch: CpuWatch,
    cluster: Cluster,
    timing_log: Path,
) -> None:
    """Where the time went: by when calls ran, the replicas' own time, the client's
    loop, CPU per process."""
    windows = [(at, outage.ready.get(n, at + 3600) + SETTLE_S) for n, at in outage.killed.items()]
    offset = time.time() - time.monotonic()
    server = server_durations((r.log for r in cluster.replicas), KINDS, offset)
    for line in latency_lines(tally.calls, windows, server, ("read", "listing", "write")):
        print(line)
    starting = [
        (outage.ports[n], outage.returned[n], outage.ready[n])
        for n in outage.ready
        if n in outage.ports and n in outage.returned
    ]
    for line in nginx_lines(timing_log, windows, offset, tally.started, starting):
        print(line)
    if lag.lags_ms:
        print(
            f"the bench client's event loop, late waking from a 50 ms sleep: p50 "
            f"{percentile(lag.lags_ms, 50):.1f} ms, p99 {percentile(lag.lags_ms, 99):.1f} ms, "
            f"max {max(lag.lags_ms):.1f} ms"
        )

    def in_window(at: float) -> bool:
        return any(start <= at <= end for start, end in windows)

    def steady(at: float) -> bool:
        return tally.started <= at and not in_window(at)

    print(
        f"machine over 95% busy: {watch.saturated_share(steady):.0f}% of the time in steady "
        f"state, {watch.saturated_share(in_window):.0f}% in kill windows"
    )
    for line in watch.window("start", "end"):
        print(line)


def _pid_of(replica: Replica) -> list[int]:
    return [replica.proc.pid]  # a new process after each restart


def components(forge: ForgeProcess, cluster: Cluster, nginx: ShippedNginx) -> CpuWatch:
    parts: dict[str, Callable[[], list[int]]] = {
        "bench client": lambda: [os.getpid()],
        "nginx": lambda: [nginx.proc.pid, *children(nginx.proc.pid)],
        "forge": lambda: [forge.proc.pid],
    }
    if cluster.redis is not None and cluster.redis.proc is not None:
        redis_pid = cluster.redis.proc.pid
        parts["redis"] = lambda: [redis_pid]
    for replica in cluster.replicas:
        parts[f"replica {replica.index}"] = partial(_pid_of, replica)
    return CpuWatch(parts, reaped={"forge"})
