"""Sessions at scale while replicas die: N replicas sharing one Redis behind the SHIPPED
deploy/nginx.conf, M concurrent 2025-11-25 sessions doing reads, listings and writes
against the sandbox forge, and one replica SIGKILLed (and restarted after --down s)
every --kill-every s.

Every piece is a real process on loopback: the forge in its own process, redis-server,
`main.py serve --transport http` replicas with the compose file's session setting
(GITHUB_MCP_SESSION_ID_HEADER=X-Request-Id), nginx running deploy/nginx.conf with only
the upstream addresses and the port rewritten (tests/replicas/test_shipped_nginx.py).
While a replica is down, --fresh-per-kill new sessions open (they land on the others).

The client (bench/_scale_client.py) re-initializes on 404 "Session not found" and
retries gateway errors and cut connections; a write's retries carry its idempotency key.
Each session waits a random think time (mean --pace s) after each answer, so the offered
load is about sessions / (pace + latency) calls a second. Before the run the forge and
each replica answer a first read (their one-time warm-up); a replica restarted during the
run is measured cold, as it comes back.
Printed: sessions broken (a 404 at least once), re-initializes, sessions opened during an
outage that broke after the replica's return, failed attempts by kind and reason, calls
that failed on every try, writes intended / acknowledged / applied / duplicated /
acknowledged-but-missing (from the forge: each write's unique comment body or commit
message counted in the forge's own lists), the offered load, and p50/p99 by kind of the
ok calls, each timed from its first try's request to its answer (retries included).
Then where that time went (bench/_scale_watch.py): the ok calls split into steady state
and kill windows (SIGKILL to 5 s after the restarted replica is ready), the replicas'
own time per call (their logs), nginx's (a timing access log, the one addition to the
shipped config), the client's event-loop lag, and CPU seconds per process against the
machine's cores, with what the rest of the machine used meanwhile: on a 2-core machine
the forge (GitHub's stand-in) and the client share the cores with the replicas, and a
saturated machine makes the latency figures a measure of its queue.

    python bench/scale.py [--replicas 3] [--sessions 200] [--duration 180]
        [--kill-every 30] [--down 5] [--pace 2] [--fresh-per-kill 5] [--quick]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2 as httpx
from _forge_process import ForgeProcess
from _raw_http import RawHttp
from _scale_client import ANSWER_WITHIN_S, Outage, ScaleSession, Tally
from _scale_watch import TIMING_LOG, CpuWatch, LoopLag, components, diagnose, percentile

# The test run's forge self-check (tests/forge_contract.py) is switched on by importing
# the tests' helpers; a run started from a shell measures the forge as GitHub's stand-in
# without it (it held each new answer against GitHub's OpenAPI description: ~80% of the
# forge's CPU here). A test run that starts this bench keeps its check.
_CONTRACT_ENV = (
    "SANDBOX_FORGE_CONTRACT_DIR",
    "SANDBOX_FORGE_OPENAPI",
    "SANDBOX_FORGE_GRAPHQL_SCHEMA",
)
_CHECKED_BY_CALLER = any(name in os.environ for name in _CONTRACT_ENV)

from tests.replicas.cluster import BEARER, Cluster, Replica  # noqa: E402
from tests.replicas.test_shipped_nginx import ShippedNginx  # noqa: E402

if not _CHECKED_BY_CALLER:
    for _name in _CONTRACT_ENV:
        os.environ.pop(_name, None)

REPO = "bench-org/scale"
ISSUES = 20
CLUSTER_ENV = {
    "GITHUB_MCP_SESSION_ID_HEADER": "X-Request-Id",  # as deploy/compose.yaml sets it
    "GITHUB_MCP_LISTEN_WHEN_READY": "true",  # as deploy/compose.yaml sets it
    "GITHUB_MCP_APPROVAL_MODE": "env",  # writes pre-approved: the bench measures landing
    "GITHUB_MCP_AUTO_APPROVE": "true",
}


def seed(forge: ForgeProcess, branches: int) -> None:
    files = {"README.md": "# scale\n", "src/app.py": "print('hello')\n" * 40}
    forge.seed_repo(
        REPO, files, branches={f"s{i:03d}": {f"s/s{i:03d}.txt": "start\n"} for i in range(branches)}
    )
    for number in range(1, ISSUES + 1):
        created = forge.admin.post(f"/repos/{REPO}/issues", json={"title": f"issue {number}"})
        created.raise_for_status()
    forge.unlimit()
    forge.warm_up(REPO)


def _pages(forge: ForgeProcess, path: str, params: dict[str, str]) -> list[dict]:
    found: list[dict] = []
    headers = {"Authorization": f"Bearer {forge.token}"}
    for page in range(1, 1000):
        response = httpx.get(
            forge.base_url + path,
            params={**params, "per_page": "100", "page": str(page)},
            headers=headers,
            timeout=60,
        )
        response.raise_for_status()
        found += response.json()
        if len(response.json()) < 100:
            return found
    return found


def applied_on_forge(forge: ForgeProcess, intended: dict[str, tuple[str, str]]) -> Counter[str]:
    """How many times each intended write's marker is on the forge."""
    counts: Counter[str] = Counter()
    issues = {target for kind, target in intended.values() if kind == "comment"}
    for number in issues:
        for comment in _pages(forge, f"/repos/{REPO}/issues/{number}/comments", {}):
            counts[comment["body"]] += 1
    branches = {target for kind, target in intended.values() if kind == "commit"}
    for branch in branches:
        for commit in _pages(forge, f"/repos/{REPO}/commits", {"sha": branch}):
            counts[commit["commit"]["message"].split("\n", 1)[0]] += 1
    return Counter({marker: counts[marker] for marker in intended})


async def _answers(replica: Replica, path: str, limit_s: float = 150) -> None:
    """Until `path` answers 200, asked every PROBE_EVERY_S on one connection (a client per
    probe cost the bench's process more CPU than its sessions while a replica started).
    /healthz answers once the process listens; /readyz once its app is built (MCP
    requests wait for it until then)."""
    deadline = time.monotonic() + limit_s
    async with httpx.AsyncClient(base_url=replica.url, timeout=2) as probe:
        while time.monotonic() < deadline:
            if replica.proc.poll() is not None:
                raise AssertionError(f"replica {replica.index} exited")
            try:
                if (await probe.get(path)).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            await asyncio.sleep(PROBE_EVERY_S)
    raise AssertionError(f"replica {replica.index}: {path} not 200 in {limit_s:g} s")


PROBE_EVERY_S = 0.1


async def kill_schedule(
    cluster: Cluster, args: argparse.Namespace, outage: Outage, until: float, fresh: list
) -> list[str]:
    """Kill a replica every --kill-every s, open the fresh sessions while it is down,
    restart it after --down s and wait until it answers."""
    notes = []
    started = time.monotonic()
    while True:
        number = outage.kills + 1
        at = started + number * args.kill_every
        if at >= until:
            return notes
        await asyncio.sleep(at - time.monotonic())
        replica = cluster.replicas[(number - 1) % len(cluster.replicas)]
        outage.kills, outage.down = number, number
        await asyncio.to_thread(replica.kill)
        killed = outage.killed[number] = time.monotonic()
        outage.ports[number] = replica.port
        for _ in range(args.fresh_per_kill):
            fresh.append(number)
        await asyncio.sleep(args.down)
        await asyncio.to_thread(replica.restart)
        await _answers(replica, "/healthz")
        outage.down = None
        outage.returned[number] = time.monotonic()
        healthy = time.monotonic() - killed
        await _answers(replica, "/readyz")
        outage.ready[number] = time.monotonic()
        notes.append(
            f"kill {number} (replica {replica.index}) at {killed - started:.0f} s: "
            f"healthy again {healthy:.1f} s later, ready (app built) "
            f"{time.monotonic() - killed:.1f} s later"
        )


async def warm_up(http: RawHttp, cluster: Cluster) -> None:
    """A read and a listing on each replica directly (not measured, not through nginx):
    the first calls of a process that has never served one. A replica restarted during
    the run is not warmed: its first calls are measured as they come."""
    for replica in cluster.replicas:
        await _answers(replica, "/readyz")
        session = ScaleSession(10_000 + replica.index, http, replica.url, BEARER, Tally())
        await session.initialize(Outage())
        await session.attempt("get_file_contents", {"full_name": REPO, "path": "README.md"})
        await session.attempt("list_issues", {"full_name": REPO, "limit": 10})


async def drive(
    url: str, args: argparse.Namespace, cluster: Cluster, watch: CpuWatch
) -> tuple[Tally, Outage, LoopLag, list[str]]:
    tally, outage, lag = Tally(), Outage(), LoopLag()
    async with RawHttp(ANSWER_WITHIN_S) as http:
        gate = asyncio.Semaphore(20)

        async def open_session(index: int) -> ScaleSession:
            session = ScaleSession(index, http, url, BEARER, tally)
            async with gate:
                await session.initialize(outage)
            return session

        await warm_up(http, cluster)
        sessions = await asyncio.gather(*(open_session(i) for i in range(args.sessions)))
        tally.started = time.monotonic()
        watch.mark("start")
        lag.start()
        until = tally.started + args.duration
        runs = [
            asyncio.create_task(s.run(REPO, ISSUES, args.pace, until, outage)) for s in sessions
        ]
        fresh: list[int] = []
        fresh_runs: list[asyncio.Task[None]] = []
        fresh_sessions: list[ScaleSession] = []

        async def open_fresh() -> None:
            next_index = args.sessions
            while time.monotonic() < until:
                while fresh:
                    fresh.pop()
                    session = ScaleSession(next_index, http, url, BEARER, tally)
                    next_index += 1
                    await session.initialize(outage)
                    fresh_sessions.append(session)
                    fresh_runs.append(
                        asyncio.create_task(session.run(REPO, ISSUES, args.pace, until, outage))
                    )
                await asyncio.sleep(0.05)

        opener = asyncio.create_task(open_fresh())
        notes = await kill_schedule(cluster, args, outage, until, fresh)
        await opener
        watch.mark("end")
        lag.stop()
        # calls under way at the end get --grace s to finish; then they count as unfinished
        everyone = runs + fresh_runs
        left = until + args.grace - time.monotonic()
        _, stuck = await asyncio.wait(everyone, timeout=max(1.0, left))
        for session, task in zip(sessions + fresh_sessions, everyone, strict=True):
            if task in stuck and session.current is not None:
                tally.unfinished[session.current] += 1
            task.cancel()
        await asyncio.gather(*everyone, return_exceptions=True)
    return tally, outage, lag, notes


def report(args: argparse.Namespace, tally: Tally, applied: Counter[str], notes: list[str]) -> None:
    load = os.getloadavg()
    opened = args.sessions + args.fresh_per_kill * len(notes)
    calls = sum(len(v) for v in tally.ok.values()) + sum(tally.lost.values())
    print(
        f"{args.replicas} replicas behind the shipped nginx.conf, one Redis; {args.sessions} "
        f"sessions ({PROTOCOL}) + {opened - args.sessions} opened during outages; "
        f"{args.duration:g} s, SIGKILL every {args.kill_every:g} s, down {args.down:g} s"
    )
    for note in notes:
        print("  " + note)
    print(f"load average at the end: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    print(f"sessions broken (404 Session not found at least once): {len(tally.broken_sessions)}")
    print(f"re-initializes: {tally.reinitializes}")
    print(
        f"sessions opened while a replica was down: {len(tally.ever_opened_while_down)}; "
        f"broken after it returned: {len(tally.broke_after_return)}"
    )
    kinds = ("read", "listing", "write")
    per_kind = ", ".join(f"{k} {len(tally.ok[k]) + tally.lost[k]}" for k in kinds)
    lost = ", ".join(f"{k} {tally.lost[k]}" for k in kinds)
    print(f"calls: {calls} ({per_kind}); failed on every try: {lost}")
    unfinished = ", ".join(f"{k} {tally.unfinished[k]}" for k in kinds)
    print(f"calls still unanswered {args.grace:g} s after the end: {unfinished}")
    print("failed attempts by kind and reason:" + ("" if tally.failed else " none"))
    for (kind, reason), count in sorted(tally.failed.items(), key=lambda kv: (kv[0][0], -kv[1])):
        print(f"  {kind:<10} {reason:<40} {count}")
    applied_total = sum(applied.values())
    duplicated = sum(1 for n in applied.values() if n > 1)
    missing = sum(1 for m in tally.acknowledged if applied[m] == 0)
    unacked = sum(1 for m, n in applied.items() if n and m not in tally.acknowledged)
    print(
        f"writes: intended {len(tally.intended)}, acknowledged {len(tally.acknowledged)}, "
        f"applied on the forge {applied_total}, duplicated {duplicated}, "
        f"acknowledged but missing {missing}, applied but not acknowledged {unacked}"
    )
    print(
        f"offered load: {calls / args.duration:.1f} calls/s ({args.sessions} sessions, each "
        f"waiting a random think time of mean {args.pace:g} s after each answer)"
    )
    print("ok calls, from the first try's request to the answer (retries included):")
    for kind in kinds:
        values = tally.ok[kind]
        if values:
            print(
                f"ok {kind:<8} n={len(values):<6} p50 {percentile(values, 50):7.1f} ms   "
                f"p99 {percentile(values, 99):7.1f} ms"
            )


PROTOCOL = "2025-11-25"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--sessions", type=int, default=200)
    parser.add_argument("--duration", type=float, default=180.0)
    parser.add_argument("--kill-every", type=float, default=30.0)
    parser.add_argument("--down", type=float, default=5.0, help="seconds before the restart")
    parser.add_argument("--pace", type=float, default=2.0, help="mean seconds between calls")
    parser.add_argument("--fresh-per-kill", type=int, default=5)
    parser.add_argument("--grace", type=float, default=90.0, help="seconds for the last calls")
    parser.add_argument("--quick", action="store_true", help="30 sessions, 50 s, a kill every 20 s")
    args = parser.parse_args()
    if args.quick:
        args.sessions, args.duration, args.kill_every = 30, 50.0, 20.0
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    check = "on (the caller's)" if _CHECKED_BY_CALLER else "off"
    print(f"the forge's self-check against GitHub's OpenAPI description: {check}")
    branches = args.sessions + args.fresh_per_kill * int(args.duration // args.kill_every + 1)
    with ForgeProcess() as forge, tempfile.TemporaryDirectory() as tmp:
        seed(forge, branches)
        cluster = Cluster(
            Path(tmp),
            api_url=forge.base_url,
            token=forge.token,
            count=args.replicas,
            stateless=False,
            extra_env=CLUSTER_ENV,
        )
        nginx_dir = Path(tmp) / "shipped-nginx"
        timing = TIMING_LOG.format(log=nginx_dir / "timing.log")
        nginx = ShippedNginx(nginx_dir, [r.port for r in cluster.replicas], http_extra=timing)
        watch = components(forge, cluster, nginx)
        watch.start()
        try:
            tally, outage, lag, notes = asyncio.run(drive(nginx.url, args, cluster, watch))
        finally:
            watch.stop()
            nginx.stop()
            cluster.close()
        report(args, tally, applied_on_forge(forge, tally.intended), notes)
        diagnose(tally, outage, lag, watch, cluster, nginx_dir / "timing.log")
        logs = "".join(r.log.read_text(errors="replace") for r in cluster.replicas)
        downs = logs.count('"event": "shared_state_down"')
        print(f"Redis counted down by a replica (its breaker opened): {downs} times")
        claims = logs.count('"event": "write_claim_orphaned"')
        locks = logs.count('"event": "write_lock_orphaned"')
        print(
            f"taken over from a dead replica by a retry: {claims} write claims, "
            f"{locks} branch locks"
        )


if __name__ == "__main__":
    main()
