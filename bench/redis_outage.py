"""What a Redis outage costs the calls made during it: Redis frozen (SIGSTOP), stopped,
or slowed (every byte 2 s late through a TCP proxy) for --outage-s seconds under load.

Real processes on loopback: the sandbox forge, redis-server (reached through a delay
proxy that adds nothing until the slowed case), and one `main.py serve --transport http`
replica (tests/replicas/cluster.py). C clients, each a 2025-11-25 session, alternate a
read (get_file_contents on main) and a write (a comment with a unique body, its
idempotency key that body) with a short pause between, before, during and after the
outage. No call is retried: every attempt is one figure.

Printed per case, first the calls that started before the outage (what the machine's
load costs with Redis healthy), then those that started during it: reads (answered, the
slowest, p50/p99, how many took over 300 ms) and writes (applied, refused, the slowest
refusal, how many took over 300 ms), with the forge's evidence: each write's body
counted in the issue's comments (applied once, twice, acknowledged but missing, refused
yet applied). Then the time from Redis's return to the first write applied, and that
write's own time.

    python bench/redis_outage.py [--clients 6] [--outage-s 10] [--cases frozen,stopped,slowed]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _forge_process import ForgeProcess
from _raw_http import RawHttp
from _scale_client import Outage, ScaleSession, Tally
from scale import _pages, percentile

from tests.replicas.cluster import BEARER, Cluster, Redis
from tests.replicas.delay_proxy import DelayProxy

REPO = "bench-org/outage"
PAUSE_S = 0.05
BEFORE_S, AFTER_S = 4.0, 6.0
SLOW_S = 2.0
ENV = {"GITHUB_MCP_APPROVAL_MODE": "env", "GITHUB_MCP_AUTO_APPROVE": "true"}


@dataclass
class Attempt:
    kind: str
    began: float
    ms: float
    outcome: str  # "ok" or the failure's reason
    marker: str = ""


async def client_loop(
    session: ScaleSession, index: int, until: float, log: list[Attempt], stop: asyncio.Event
) -> None:
    n = 0
    while time.monotonic() < until and not stop.is_set():
        n += 1
        began = time.monotonic()
        if n % 2:
            args = {"full_name": REPO, "path": "README.md", "ref": "main"}
            failure, ms = await session.attempt("get_file_contents", args)
            log.append(Attempt("read", began, ms, failure.reason if failure else "ok"))
        else:
            marker = f"outage-{index}-{n}-{time.time_ns()}"
            args = {"full_name": REPO, "number": index + 1, "body": marker}
            failure, ms = await session.attempt("comment_on_issue", args, key=marker)
            log.append(Attempt("write", began, ms, failure.reason if failure else "ok", marker))
        await asyncio.sleep(PAUSE_S)


def outage_start(case: str, redis: Redis, proxy: DelayProxy) -> None:
    assert redis.proc is not None
    if case == "frozen":
        redis.proc.send_signal(signal.SIGSTOP)
    elif case == "stopped":
        redis.stop()
    else:
        proxy.delay = SLOW_S


def outage_end(case: str, redis: Redis, proxy: DelayProxy) -> None:
    if case == "frozen":
        assert redis.proc is not None
        redis.proc.send_signal(signal.SIGCONT)
    elif case == "stopped":
        redis.start()
    else:
        proxy.delay = 0.0


async def run_case(
    case: str, cluster: Cluster, redis: Redis, proxy: DelayProxy, args: argparse.Namespace
) -> tuple[list[Attempt], tuple[float, float]]:
    log: list[Attempt] = []
    url = cluster.replicas[0].url
    async with RawHttp(120) as http:
        sessions = [ScaleSession(i, http, url, BEARER, Tally()) for i in range(args.clients)]
        for s in sessions:
            await s.initialize(Outage())
        began = time.monotonic()
        until = began + BEFORE_S + args.outage_s + AFTER_S
        stop = asyncio.Event()
        tasks = [
            asyncio.create_task(client_loop(s, i, until, log, stop)) for i, s in enumerate(sessions)
        ]
        await asyncio.sleep(BEFORE_S)
        window = (time.monotonic(), 0.0)
        await asyncio.to_thread(outage_start, case, redis, proxy)
        await asyncio.sleep(args.outage_s)
        await asyncio.to_thread(outage_end, case, redis, proxy)
        window = (window[0], time.monotonic())
        await asyncio.gather(*tasks)
    return log, window


def report(case: str, log: list[Attempt], window: tuple[float, float], applied: Counter[str]):
    start, end = window
    during = [a for a in log if start <= a.began < end]
    print(f"-- Redis {case} for {end - start:.1f} s (load {os.getloadavg()[0]:.2f})")
    # the same calls before the outage, Redis healthy: what this machine's load costs
    for kind in ("read", "write"):
        ms = [a.ms for a in log if a.began < start and a.kind == kind and a.outcome == "ok"]
        if ms:
            print(
                f"  {kind}s before it (Redis healthy): {len(ms)}, p50 {percentile(ms, 50):.0f} "
                f"ms p99 {percentile(ms, 99):.0f} ms, over 300 ms: {sum(m > 300 for m in ms)}"
            )
    reads = [a for a in during if a.kind == "read"]
    ok_ms = [a.ms for a in reads if a.outcome == "ok"]
    if reads:
        print(
            f"  reads started during it: {len(reads)}, answered ok {len(ok_ms)}, "
            f"slowest {max(a.ms for a in reads):.0f} ms, "
            + (
                f"p50 {percentile(ok_ms, 50):.0f} ms p99 {percentile(ok_ms, 99):.0f} ms, "
                if ok_ms
                else ""
            )
            + f"over 300 ms: {sum(a.ms > 300 for a in reads)}"
        )
        failures = Counter(a.outcome for a in reads if a.outcome != "ok")
        if failures:
            print(f"  reads failed: {dict(failures)}")
    writes = [a for a in during if a.kind == "write"]
    done = [a for a in writes if a.outcome == "ok"]
    refused = [a for a in writes if a.outcome != "ok"]
    print(
        f"  writes started during it: {len(writes)}, applied {len(done)}, refused "
        f"{len(refused)} {dict(Counter(a.outcome for a in refused))}, "
        f"slowest refusal {max((a.ms for a in refused), default=0):.0f} ms, "
        f"over 300 ms: {sum(a.ms > 300 for a in writes)}"
    )
    every = [a for a in log if a.kind == "write"]
    twice = sum(applied[a.marker] > 1 for a in every)
    missing = sum(applied[a.marker] == 0 for a in every if a.outcome == "ok")
    refused_applied = sum(applied[a.marker] > 0 for a in every if a.outcome != "ok")
    print(
        f"  forge: every write of the run ({len(every)}): applied twice {twice}, "
        f"acknowledged but missing {missing}, refused yet applied {refused_applied}"
    )
    after = sorted((a for a in log if a.kind == "write" and a.began >= end), key=lambda a: a.began)
    first_ok = next((a for a in after if a.outcome == "ok"), None)
    if first_ok is not None:
        landed = first_ok.began + first_ok.ms / 1000 - end
        print(
            f"  after Redis returned: first write applied {landed:.2f} s "
            f"later (that write took {first_ok.ms:.0f} ms); writes refused after the return: "
            f"{sum(a.outcome != 'ok' for a in after)}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--outage-s", type=float, default=10.0)
    parser.add_argument("--cases", default="frozen,stopped,slowed")
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with ForgeProcess() as forge, tempfile.TemporaryDirectory() as tmp:
        forge.seed_repo(REPO, {"README.md": "# outage\n"})
        forge.warm_up(REPO)
        for number in range(1, args.clients + 1):
            forge.admin.post(
                f"/repos/{REPO}/issues", json={"title": f"i{number}"}
            ).raise_for_status()
        forge.unlimit()
        redis = Redis(Path(tmp) / "redis")
        proxy = DelayProxy(redis.port)
        cluster = Cluster(
            Path(tmp),
            api_url=forge.base_url,
            token=forge.token,
            count=1,
            stateless=False,
            shared=False,
            extra_env=dict(ENV, GITHUB_MCP_STATE_URL=proxy.url),
        )
        try:
            for case in args.cases.split(","):
                log, window = asyncio.run(run_case(case, cluster, redis, proxy, args))
                counts: Counter[str] = Counter()
                for number in range(1, args.clients + 1):
                    for c in _pages(forge, f"/repos/{REPO}/issues/{number}/comments", {}):
                        counts[c["body"]] += 1
                report(case, log, window, counts)
                time.sleep(2)
        finally:
            cluster.close()
            proxy.close()
            if redis.proc is not None:
                redis.proc.send_signal(signal.SIGCONT)
            redis.stop()


if __name__ == "__main__":
    main()
