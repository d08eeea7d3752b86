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
Printed: sessions broken (a 404 at least once), re-initializes, sessions opened during an
outage that broke after the replica's return, failed attempts by kind and reason, calls
that failed on every try, writes intended / acknowledged / applied / duplicated /
acknowledged-but-missing (from the forge: each write's unique comment body or commit
message counted in the forge's own lists), and p50/p99 by kind of the ok calls.

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
from _scale_client import ANSWER_WITHIN_S, Outage, ScaleSession, Tally

from tests.replicas.cluster import BEARER, Cluster, wait_for
from tests.replicas.test_shipped_nginx import ShippedNginx

REPO = "bench-org/scale"
ISSUES = 20
CLUSTER_ENV = {
    "GITHUB_MCP_SESSION_ID_HEADER": "X-Request-Id",  # as deploy/compose.yaml sets it
    "GITHUB_MCP_APPROVAL_MODE": "env",  # writes pre-approved: the bench measures landing
    "GITHUB_MCP_AUTO_APPROVE": "true",
}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def seed(forge: ForgeProcess, branches: int) -> None:
    files = {"README.md": "# scale\n", "src/app.py": "print('hello')\n" * 40}
    forge.seed_repo(
        REPO, files, branches={f"s{i:03d}": {f"s/s{i:03d}.txt": "start\n"} for i in range(branches)}
    )
    for number in range(1, ISSUES + 1):
        created = forge.admin.post(f"/repos/{REPO}/issues", json={"title": f"issue {number}"})
        created.raise_for_status()
    forge.unlimit()


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
        killed = time.monotonic()
        for _ in range(args.fresh_per_kill):
            fresh.append(number)
        await asyncio.sleep(args.down)
        await asyncio.to_thread(replica.restart)
        await asyncio.to_thread(wait_for, replica.healthy, "the restarted replica", 150)
        outage.down = None
        outage.returned[number] = time.monotonic()
        notes.append(
            f"kill {number} (replica {replica.index}) at {killed - started:.0f} s: "
            f"healthy again {time.monotonic() - killed:.1f} s later"
        )


async def drive(url: str, args: argparse.Namespace, cluster: Cluster) -> tuple[Tally, list[str]]:
    tally, outage = Tally(), Outage()
    limits = httpx.Limits(max_connections=args.sessions * 2, max_keepalive_connections=100)
    timeout = httpx.Timeout(ANSWER_WITHIN_S, connect=10.0)
    async with httpx.AsyncClient(timeout=timeout, limits=limits) as http:
        gate = asyncio.Semaphore(20)

        async def open_session(index: int) -> ScaleSession:
            session = ScaleSession(index, http, url, BEARER, tally)
            async with gate:
                await session.initialize(outage)
            return session

        sessions = await asyncio.gather(*(open_session(i) for i in range(args.sessions)))
        tally.started = time.monotonic()
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
        # calls under way at the end get --grace s to finish; then they count as unfinished
        everyone = runs + fresh_runs
        left = until + args.grace - time.monotonic()
        _, stuck = await asyncio.wait(everyone, timeout=max(1.0, left))
        for session, task in zip(sessions + fresh_sessions, everyone, strict=True):
            if task in stuck and session.current is not None:
                tally.unfinished[session.current] += 1
            task.cancel()
        await asyncio.gather(*everyone, return_exceptions=True)
    return tally, notes


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
        nginx = ShippedNginx(Path(tmp) / "shipped-nginx", [r.port for r in cluster.replicas])
        try:
            tally, notes = asyncio.run(drive(nginx.url, args, cluster))
        finally:
            nginx.stop()
            cluster.close()
        report(args, tally, applied_on_forge(forge, tally.intended), notes)
        logs = "".join(r.log.read_text(errors="replace") for r in cluster.replicas)
        downs = logs.count('"event": "shared_state_down"')
        print(f"Redis counted down by a replica (its breaker opened): {downs} times")


if __name__ == "__main__":
    main()
