"""Replicas sharing state in Redis, measured: what one replica and three behind nginx
serve, how many of 20 concurrent writers land with the Redis branch lock and without it,
and how many Redis commands each kind of tool call adds.

Every piece is a real process on loopback, started by the replica tests' cluster helper
(tests/replicas/cluster.py): the sandbox forge in its own process, redis-server, N
`main.py serve --transport http --stateless` replicas, nginx round-robin in front. The
load is raw MCP JSON-RPC over HTTP (bench/load.py's thin client), so the generator's own
CPU stays small.

1. Cached reads (get_file_contents of one file, served from the replica's cache), closed
   loop with C clients: throughput, p50/p99 and the CPU per call of every server-side
   process (replicas, Redis, nginx), for 1 replica without Redis (today's deployment),
   1 replica with Redis (direct and behind nginx), and 3 replicas with and without Redis
   behind nginx.
2. 20 concurrent writers on one branch, spread over 3 replicas by nginx: different files
   (a landing = the file holds the writer's content in the branch's final tree, read from
   the forge), then one shared file (landed / conflict / lost, where lost = acknowledged
   but its commit is not in the branch's history), with the Redis lock and without Redis.
3. Redis commands one tool call adds (INFO commandstats delta around single calls on one
   replica): a cached read, an uncached read, a write.

Each figure is the median of --rounds rounds (min-max beside it).

    .venv/bin/python bench/replicas.py [--rounds 3] [--clients 8] [--calls 1500]
        [--replicas 3] [--quick]

--quick (the suite's smoke run) is 1 round, small counts and 2 replicas where 3 stand.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx2 as httpx
import redis
from _forge_process import ForgeProcess
from load import McpHttpClient, process_cpu_seconds

from tests.replicas.cluster import BEARER, Cluster

REPO = "bench-org/replicas"
READ_PATH = "src/service.py"
READ_ARGS = {"full_name": REPO, "path": READ_PATH, "ref": "main"}
WRITERS = 20
CLUSTER_ENV = {
    "GITHUB_MCP_APPROVAL_MODE": "env",  # writes pre-approved: the bench measures landing
    "GITHUB_MCP_AUTO_APPROVE": "true",
    "GITHUB_MCP_CACHE_TTL_SECONDS": "3600",  # cached reads stay hits within a run
}


def _seed_files() -> dict[str, str]:
    body = "def handler_{0}(request):\n    return {{'id': {0}, 'ok': True}}\n"
    files = {READ_PATH: "\n".join(body.format(i) for i in range(60))}
    files.update({f"docs/page_{i:03d}.md": f"# page {i}\n" for i in range(200)})
    files["shared.txt"] = "start\n"
    return files


class Deployments:
    """Each distinct deployment (replica count, with or without Redis) starts once per run
    and serves every section that needs it: a start costs each replica seconds of CPU, and
    no figure depends on a fresh one (writers work on fresh branches, Redis figures are
    deltas around single calls). An idle deployment costs next to nothing meanwhile."""

    def __init__(self, forge: ForgeProcess, root: Path) -> None:
        self.forge, self.root = forge, root
        self._started: dict[tuple[int, bool], Cluster] = {}

    def get(self, *, count: int, shared: bool) -> Cluster:
        if (count, shared) not in self._started:
            directory = Path(tempfile.mkdtemp(prefix=f"replicas{count}-", dir=self.root))
            self._started[count, shared] = Cluster(
                directory,
                api_url=self.forge.base_url,
                token=self.forge.token,
                count=count,
                shared=shared,
                extra_env=CLUSTER_ENV,
            )
        return self._started[count, shared]

    def close(self) -> None:
        while self._started:
            self._started.popitem()[1].close()


def _children(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/task/{pid}/children", encoding="ascii") as handle:
            return [int(p) for p in handle.read().split()]
    except OSError:
        return []


def server_side_pids(c: Cluster) -> list[int]:
    """Replicas, redis-server, nginx's master and workers: the CPU a deployment spends."""
    pids = [r.proc.pid for r in c.replicas] + [c.nginx.proc.pid]
    pids += _children(c.nginx.proc.pid)
    if c.redis is not None and c.redis.proc is not None:
        pids.append(c.redis.proc.pid)
    return pids


def cpu_of(pids: list[int]) -> float:
    return sum(process_cpu_seconds(pid) for pid in pids)


def client_for(http: httpx.AsyncClient, url: str) -> McpHttpClient:
    mcp = McpHttpClient(http, url, stateless=True)
    mcp.headers["Authorization"] = f"Bearer {BEARER}"
    return mcp


async def call(mcp: McpHttpClient, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """The tool's result: structuredContent plus isError."""
    result = await mcp.request("tools/call", {"name": tool, "arguments": arguments})
    return {"isError": bool(result.get("isError")), **(result.get("structuredContent") or {})}


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * len(ordered)) - 1))]


def spread(values: list[float], fmt: str) -> str:
    mid = format(statistics.median(values), fmt)
    if len(values) < 2:
        return mid
    return f"{mid} ({format(min(values), fmt)}-{format(max(values), fmt)})"


# --- 1. cached-read throughput ------------------------------------------------------


@dataclass
class ReadRound:
    throughput: float
    p50: float
    p99: float
    cpu_ms_per_call: float


async def read_round(url: str, pids: list[int], clients: int, calls: int) -> ReadRound:
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits, timeout=60) as http:
        sessions = [client_for(http, url) for _ in range(clients)]
        await asyncio.gather(*(s.initialize() for s in sessions))
        for s in sessions:  # warm: every replica behind the proxy caches the file
            for _ in range(4):
                assert not (await call(s, "get_file_contents", READ_ARGS))["isError"]
        latencies: list[float] = []
        remaining = calls

        async def drive(session: McpHttpClient) -> None:
            nonlocal remaining
            while remaining > 0:
                remaining -= 1
                started = time.perf_counter()
                answer = await call(session, "get_file_contents", READ_ARGS)
                latencies.append((time.perf_counter() - started) * 1000)
                if answer["isError"]:
                    raise RuntimeError(f"cached read failed: {answer}")

        cpu_before = cpu_of(pids)
        started = time.perf_counter()
        await asyncio.gather(*(drive(s) for s in sessions))
        wall = time.perf_counter() - started
        cpu = cpu_of(pids) - cpu_before
    return ReadRound(
        throughput=len(latencies) / wall,
        p50=percentile(latencies, 50),
        p99=percentile(latencies, 99),
        cpu_ms_per_call=cpu * 1000 / len(latencies),
    )


async def read_config(
    label: str, url: str, pids: list[int], args: argparse.Namespace
) -> list[ReadRound]:
    await read_round(url, pids, clients=2, calls=max(50, args.calls // 10))  # warm-up
    rounds = [await read_round(url, pids, args.clients, args.calls) for _ in range(args.rounds)]
    print(
        f"  {label:<38} {spread([r.throughput for r in rounds], '.0f'):>16} calls/s  "
        f"p50 {spread([r.p50 for r in rounds], '.1f'):>16} ms  "
        f"p99 {spread([r.p99 for r in rounds], '.1f'):>16} ms  "
        f"CPU {spread([r.cpu_ms_per_call for r in rounds], '.2f')} ms/call",
        flush=True,
    )
    return rounds


async def section_throughput(deployments: Deployments, args: argparse.Namespace) -> None:
    print(
        f"\n== 1. cached-read throughput: closed loop, {args.clients} clients, "
        f"{args.calls} calls x {args.rounds} round(s); median (min-max) ==",
        flush=True,
    )
    results: dict[str, list[ReadRound]] = {}
    c = deployments.get(count=1, shared=False)
    results["base"] = await read_config(
        "1 replica, no Redis, direct", c.replicas[0].url, server_side_pids(c), args
    )
    c = deployments.get(count=1, shared=True)
    pids = server_side_pids(c)
    results["redis1"] = await read_config(
        "1 replica + Redis, direct", c.replicas[0].url, pids, args
    )
    results["nginx1"] = await read_config(
        "1 replica + Redis, behind nginx", c.nginx.url, pids, args
    )
    n = args.replicas
    c = deployments.get(count=n, shared=False)
    results["plain3"] = await read_config(
        f"{n} replicas, no Redis, nginx round-robin", c.nginx.url, server_side_pids(c), args
    )
    c = deployments.get(count=n, shared=True)
    results["redis3"] = await read_config(
        f"{n} replicas + Redis, nginx round-robin", c.nginx.url, server_side_pids(c), args
    )

    def tput(key: str) -> float:
        return statistics.median(r.throughput for r in results[key])

    print("  ratios of median throughput:")
    print(f"    {n} replicas + Redis / 1 replica no Redis     {tput('redis3') / tput('base'):.2f}")
    print(
        f"    {n} replicas + Redis / 1 replica + Redis      {tput('redis3') / tput('redis1'):.2f}"
    )
    print(f"    1 replica + Redis / 1 replica no Redis      {tput('redis1') / tput('base'):.2f}")
    print(f"    1 replica behind nginx / direct (Redis on)  {tput('nginx1') / tput('redis1'):.2f}")
    print(
        f"    {n} replicas + Redis / {n} replicas no Redis    {tput('redis3') / tput('plain3'):.2f}"
    )
    print(
        "  note: this machine has 2 cores shared by the load generator, nginx, Redis, the\n"
        f"  forge and every replica, so {n} replicas cannot show scale-out here; the ratios\n"
        "  show what the proxy hop and the Redis checks cost per call, not capacity.\n"
        "  Scale-out needs a core (or a machine) per replica."
    )


# --- 2. concurrent writers ------------------------------------------------------------


def _forge_get(forge: ForgeProcess, path: str) -> Any:
    response = httpx.get(
        forge.base_url + path, headers={"Authorization": f"Bearer {forge.token}"}, timeout=30
    )
    response.raise_for_status()
    return response.json()


def _create_branch(forge: ForgeProcess, branch: str) -> None:
    head = _forge_get(forge, f"/repos/{REPO}/git/ref/heads/main")["object"]["sha"]
    response = httpx.post(
        forge.base_url + f"/repos/{REPO}/git/refs",
        headers={"Authorization": f"Bearer {forge.token}"},
        json={"ref": f"refs/heads/{branch}", "sha": head},
        timeout=30,
    )
    response.raise_for_status()


def _file_at(forge: ForgeProcess, path: str, ref: str) -> str | None:
    response = httpx.get(
        forge.base_url + f"/repos/{REPO}/contents/{path}?ref={ref}",
        headers={"Authorization": f"Bearer {forge.token}"},
        timeout=30,
    )
    if response.status_code == 404:
        return None
    response.raise_for_status()
    return base64.b64decode(response.json()["content"]).decode()


def _history(forge: ForgeProcess, branch: str) -> set[str]:
    commits = _forge_get(forge, f"/repos/{REPO}/commits?sha={branch}&per_page=100")
    return {c["sha"] for c in commits}


def _commit_args(branch: str, path: str, content: str) -> dict[str, Any]:
    return {
        "full_name": REPO,
        "branch": branch,
        "message": f"bench write {path}",
        "files": [{"path": path, "content": content}],
    }


async def _writers(url: str, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    limits = httpx.Limits(max_connections=len(calls), max_keepalive_connections=len(calls))
    async with httpx.AsyncClient(limits=limits, timeout=300) as http:
        sessions = [client_for(http, url) for _ in calls]
        await asyncio.gather(*(s.initialize() for s in sessions))
        return list(
            await asyncio.gather(
                *(call(s, "commit_files", args) for s, args in zip(sessions, calls, strict=True))
            )
        )


def _error_code(answer: dict[str, Any]) -> str:
    error = answer.get("error")
    return str(error.get("code")) if isinstance(error, dict) else "error"


async def writers_round(forge: ForgeProcess, url: str, writers: int) -> dict[str, int]:
    """One round of different-file writers, then one of same-file writers, each on a
    fresh branch; counted from the forge's final tree and history."""
    counts: dict[str, int] = {}
    branch = f"diff-{uuid.uuid4().hex[:8]}"
    _create_branch(forge, branch)
    contents = {f"out/w{i:02d}.txt": f"writer {i} {uuid.uuid4().hex}\n" for i in range(writers)}
    answers = await _writers(url, [_commit_args(branch, p, t) for p, t in contents.items()])
    landed = [_file_at(forge, p, branch) == t for p, t in contents.items()]
    counts["diff_landed"] = sum(landed)
    counts["diff_acknowledged"] = sum(not a["isError"] for a in answers)
    counts["diff_lost"] = sum(
        not a["isError"] and not ok for a, ok in zip(answers, landed, strict=True)
    )
    counts["diff_conflict"] = sum(a["isError"] and _error_code(a) == "conflict" for a in answers)
    counts["diff_other_error"] = sum(a["isError"] and _error_code(a) != "conflict" for a in answers)

    branch = f"same-{uuid.uuid4().hex[:8]}"
    _create_branch(forge, branch)
    texts = [f"same-file writer {i} {uuid.uuid4().hex}\n" for i in range(writers)]
    answers = await _writers(url, [_commit_args(branch, "shared.txt", t) for t in texts])
    history = _history(forge, branch)
    acknowledged = [a for a in answers if not a["isError"]]
    counts["same_landed"] = sum(a.get("commit_sha") in history for a in acknowledged)
    counts["same_lost"] = sum(a.get("commit_sha") not in history for a in acknowledged)
    counts["same_conflict"] = sum(a["isError"] and _error_code(a) == "conflict" for a in answers)
    counts["same_other_error"] = sum(a["isError"] and _error_code(a) != "conflict" for a in answers)
    final = _file_at(forge, "shared.txt", branch)
    counts["same_final_from_a_writer"] = int(final in texts)
    return counts


async def section_writers(
    forge: ForgeProcess, deployments: Deployments, args: argparse.Namespace
) -> None:
    writers = args.writers
    print(
        f"\n== 2. {writers} concurrent writers on one branch, {args.replicas} replicas, "
        "nginx round-robin; "
        f"median (min-max) of {args.rounds} round(s), evidence from the forge ==",
        flush=True,
    )
    for label, shared in (("with the Redis branch lock", True), ("without Redis (no lock)", False)):
        url = deployments.get(count=args.replicas, shared=shared).nginx.url
        rounds = [await writers_round(forge, url, writers) for _ in range(args.rounds)]

        def fig(key: str, rounds: list[dict[str, int]] = rounds) -> str:
            return spread([float(r[key]) for r in rounds], ".0f")

        print(f"  {label}:")
        print(
            f"    different files: landed {fig('diff_landed')}/{writers}  "
            f"(acknowledged {fig('diff_acknowledged')}, conflict {fig('diff_conflict')}, "
            f"other error {fig('diff_other_error')}, lost {fig('diff_lost')})"
        )
        print(
            f"    same file:       landed {fig('same_landed')}/{writers}  "
            f"conflict {fig('same_conflict')}  lost {fig('same_lost')}  "
            f"other error {fig('same_other_error')}  "
            f"(final content is a writer's: {fig('same_final_from_a_writer')})",
            flush=True,
        )


# --- 3. Redis commands per tool call --------------------------------------------------

_NOT_THE_CALL = {"cmdstat_info"}


def commandstats(r: redis.Redis) -> dict[str, int]:
    stats = r.info("commandstats")
    return {name: int(value["calls"]) for name, value in stats.items() if name not in _NOT_THE_CALL}


def delta(before: dict[str, int], after: dict[str, int]) -> dict[str, int]:
    changed = {k[len("cmdstat_") :]: v - before.get(k, 0) for k, v in after.items()}
    return {k: v for k, v in changed.items() if v}


async def redis_commands_of(
    r: redis.Redis,
    mcp: McpHttpClient,
    tool: str,
    make_args: Callable[[int], dict[str, Any]],
    n: int,
) -> list[dict[str, int]]:
    samples = []
    for i in range(n):
        args = make_args(i)
        before = commandstats(r)
        answer = await call(mcp, tool, args)
        after = commandstats(r)
        if answer["isError"]:
            raise RuntimeError(f"{tool} failed: {answer}")
        samples.append(delta(before, after))
    return samples


def _median_sample(samples: list[dict[str, int]]) -> dict[str, int]:
    """The sample whose total is the median (a heartbeat SET during a call is noise)."""
    ordered = sorted(samples, key=lambda s: sum(s.values()))
    return ordered[len(ordered) // 2]


async def section_round_trips(deployments: Deployments, args: argparse.Namespace) -> None:
    samples_per_kind = max(3, args.rounds * 3)
    print(
        "\n== 3. Redis commands one tool call adds (INFO commandstats delta around a single "
        f"call on one replica, stateless transport; median of {samples_per_kind} calls) ==",
        flush=True,
    )
    c = deployments.get(count=1, shared=True)
    assert c.redis is not None
    r = redis.Redis.from_url(c.redis.url)
    async with httpx.AsyncClient(timeout=120) as http:
        mcp = client_for(http, c.replicas[0].url)
        await mcp.initialize()
        assert not (await call(mcp, "get_file_contents", READ_ARGS))["isError"]  # warm
        run = uuid.uuid4().hex[:6]
        kinds = {
            "cached read (get_file_contents, hit)": (
                "get_file_contents",
                lambda i: READ_ARGS,
            ),
            "uncached read (get_file_contents, new path)": (
                "get_file_contents",
                lambda i: dict(READ_ARGS, path=f"docs/page_{i:03d}.md"),
            ),
            "write (commit_files, one new file)": (
                "commit_files",
                lambda i: _commit_args("main", f"rt/{run}_{i}.txt", f"{i}\n"),
            ),
        }
        for label, (tool, make_args) in kinds.items():
            samples = await redis_commands_of(r, mcp, tool, make_args, samples_per_kind)
            totals = [float(sum(s.values())) for s in samples]
            typical = _median_sample(samples)
            breakdown = ", ".join(f"{k} {v}" for k, v in sorted(typical.items()))
            print(f"  {label:<46} {spread(totals, '.0f'):>10} commands  [{breakdown}]")
    r.close()
    print(
        "  (commands, not round trips: a pipeline or MULTI/EXEC sends several commands in one\n"
        "  round trip, so round trips are at most these counts)"
    )


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--clients", type=int, default=8)
    parser.add_argument("--calls", type=int, default=1500, help="cached reads per round")
    parser.add_argument("--writers", type=int, default=WRITERS)
    parser.add_argument("--replicas", type=int, default=3, help="replicas behind nginx")
    parser.add_argument(
        "--quick", action="store_true", help="a smoke run: 1 round, small counts, 2 replicas"
    )
    parser.add_argument("--only", choices=["throughput", "writers", "redis"], default=None)
    args = parser.parse_args()
    if args.quick:
        args.rounds, args.clients, args.calls, args.writers, args.replicas = 1, 2, 40, 6, 2
    started = time.monotonic()
    with ForgeProcess() as forge, tempfile.TemporaryDirectory(prefix="bench-replicas-") as tmp:
        forge.seed_repo(REPO, _seed_files())
        forge.set_latency(0)
        print(f"forge latency 0 ms; rounds {args.rounds}{' (quick)' if args.quick else ''}")
        deployments = Deployments(forge, Path(tmp))
        try:
            if args.only in (None, "throughput"):
                await section_throughput(deployments, args)
            if args.only in (None, "writers"):
                await section_writers(forge, deployments, args)
            if args.only in (None, "redis"):
                await section_round_trips(deployments, args)
        finally:
            deployments.close()
    print(f"\ndone in {time.monotonic() - started:.0f} s")


if __name__ == "__main__":
    asyncio.run(main())
