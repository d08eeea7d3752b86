"""Whole tasks, measured from outside: scripted agents run five workflows over stdio on
the sandbox forge (the demo repository, made afresh for each round), with our server and
with the reference Node server (bench/_reference_server.py) where it has the tools.

    diagnose_ci     why CI fails on PR #1 (the failing tests, from the job logs)
    merge_ready     can PR #1 merge, and what blocks it (mergeability not computed yet)
    triage_issue    read issue #3, search for duplicates, comment, label it
    ship_5_files    a 5-file change on a new branch, opened as a PR
    address_review  PR #1's unresolved review threads: one commit, then resolve them

Each agent uses the shortest sequence of its server's tools a competent agent would use.
Each scenario (a workflow, or ship_5_files then triage_issue in one session: a new user's
first two tasks) runs in a server spawned for it, as a user meets it: the client spawns
it, initializes, lists its tools and starts at once, or after a 1 s pause (a model's
first turn), with no other request in between. For each: tool calls, forge requests (and
their sequential round trips: requests whose spans overlap count once; at 0 ms a request
sent alongside another may end before it starts, so the count means most at 50 ms), the
time from the spawn to the last answer and from the tools/list answer to the last answer
(both less the pause), and each call's own time (a slow first call shows), at 0 and 50 ms
of forge latency, median of the rounds, with the reference server in the same run.
Completion is checked from the forge's state (its API and the demo's seeded truth), never
from the answers alone.

The agents talk MCP through bench/_line_client.py, a line-level JSON-RPC client whose
own share of a call is small and alike for both servers; `--client fastmcp` uses
fastmcp's Client instead (it validates every message with the protocol's pydantic models
and post-processes each result, on the client's side of the clock).

    python bench/workflows.py [--rounds 3] [--no-reference] [--tree DIR] [--client line|fastmcp]
                              [--only SCENARIO ...]

`--tree DIR` runs our server from another checkout (an older commit, for before/after).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx2 as httpx
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _forge_process import round_trips  # noqa: E402
from _line_client import LineClient  # noqa: E402
from _reference_server import node_command  # noqa: E402

from sandbox_forge import Forge  # noqa: E402
from sandbox_forge.admin.collab_seeding import set_mergeability_delay  # noqa: E402
from sandbox_forge.admin.seed import seed_demo  # noqa: E402

REPO = "octo-org/demo-app"
OWNER, NAME = REPO.split("/")
PR1 = f"{REPO}#1"
ISSUE = 3
TREE = ROOT  # where our server runs from (--tree)
CLIENT = "line"  # the MCP client the agents use (--client)
ORDER = ("merge_ready", "diagnose_ci", "triage_issue", "ship_5_files", "address_review")


# (tool, arguments) -> (the text handed to the model, is_error)
CallTool = Callable[[str, dict[str, Any]], Awaitable[tuple[str, bool]]]


@dataclass
class Agent:
    """Calls tools and counts what a model would be handed."""

    call_tool: CallTool
    calls: int = 0
    text_bytes: int = 0
    texts: list[str] = field(default_factory=list)

    async def call(self, name: str, args: dict[str, Any]) -> Any:
        text, is_error = await self.call_tool(name, args)
        self.calls += 1
        self.text_bytes += len(text.encode())
        self.texts.append(text)
        if is_error:
            raise RuntimeError(f"{name}: {text[:300]}")
        try:
            return json.loads(text)
        except ValueError:
            return text


# --- our agents -------------------------------------------------------------------------


async def ours_diagnose_ci(agent: Agent, tag: str) -> None:
    await agent.call("get_failing_tests", {"pr": PR1})


async def ours_merge_ready(agent: Agent, tag: str) -> None:
    await agent.call("check_merge_readiness", {"pr": PR1})


async def ours_triage_issue(agent: Agent, tag: str) -> None:
    issue = await agent.call("get_issue", {"full_name": REPO, "number": ISSUE})
    word = max(re.findall(r"[A-Za-z]{4,}", issue["title"]), key=len)
    await agent.call("search", {"query": word, "kind": "issues", "full_name": REPO})
    body = f"Triaged ({tag}): reproduced; see the linked search."
    await agent.call("comment_on_issue", {"full_name": REPO, "number": ISSUE, "body": body})
    labels = [*issue.get("labels", []), f"triage-{tag}"]
    await agent.call("update_issue", {"full_name": REPO, "number": ISSUE, "labels": labels})


def five_files(tag: str) -> list[dict[str, str]]:
    return [
        {"path": f"docs/{tag}/note{i}.md", "content": f"# Note {i}\n\n{tag}\n"} for i in range(5)
    ]


async def ours_ship_5_files(agent: Agent, tag: str) -> None:
    await agent.call(
        "update_files_and_open_pr",
        {"full_name": REPO, "branch": f"bench/{tag}", "files": five_files(tag),
         "title": f"Notes {tag}", "message": f"Add notes {tag}"},
    )  # fmt: skip


def addressed(path: str, text: str) -> str:
    mark = "//" if path.endswith((".js", ".ts")) else "#"
    return text + ("" if text.endswith("\n") else "\n") + f"{mark} review addressed\n"


async def ours_address_review(agent: Agent, tag: str) -> None:
    found = await agent.call("find_unresolved_comments", {"pr": PR1})
    if "head" not in found:  # older servers: one more call for the branch to fix
        found["head"] = (await agent.call("get_pr_overview", {"pr": PR1}))["head"]
    paths = sorted({t["path"] for t in found["threads"] if t.get("path")})
    read = await agent.call(
        "fetch_files", {"full_name": REPO, "paths": paths, "ref": found["head"]}
    )
    files = [
        {"path": f["path"], "content": addressed(f["path"], f["content"])} for f in read["files"]
    ]
    await agent.call(
        "commit_files",
        {"full_name": REPO, "branch": found["head"], "files": files, "message": "Address review"},
    )
    for thread in found["threads"]:
        await agent.call("resolve_review_thread", {"pr": PR1, "thread_id": thread["thread_id"]})


# --- the reference server's agents (where it has the tools) ---------------------------------

REF = {"owner": OWNER, "repo": NAME}


async def ref_diagnose_ci(agent: Agent, tag: str) -> None:
    # it has no check runs and no job logs: the PR and its combined commit status are all
    await agent.call("get_pull_request", {**REF, "pull_number": 1})
    await agent.call("get_pull_request_status", {**REF, "pull_number": 1})


async def ref_merge_ready(agent: Agent, tag: str) -> None:
    await agent.call("get_pull_request", {**REF, "pull_number": 1})
    await agent.call("get_pull_request_status", {**REF, "pull_number": 1})
    await agent.call("get_pull_request_reviews", {**REF, "pull_number": 1})


async def ref_triage_issue(agent: Agent, tag: str) -> None:
    issue = await agent.call("get_issue", {**REF, "issue_number": ISSUE})
    word = max(re.findall(r"[A-Za-z]{4,}", issue["title"]), key=len)
    await agent.call("search_issues", {"q": f"{word} repo:{REPO} is:issue"})
    body = f"Triaged ({tag}): reproduced; see the linked search."
    await agent.call("add_issue_comment", {**REF, "issue_number": ISSUE, "body": body})
    labels = [label["name"] for label in issue.get("labels", [])] + [f"triage-{tag}"]
    await agent.call("update_issue", {**REF, "issue_number": ISSUE, "labels": labels})


async def ref_ship_5_files(agent: Agent, tag: str) -> None:
    branch = f"bench/{tag}"
    await agent.call("create_branch", {**REF, "branch": branch, "from_branch": "main"})
    await agent.call(
        "push_files", {**REF, "branch": branch, "files": five_files(tag), "message": f"Add {tag}"}
    )
    await agent.call(
        "create_pull_request",
        {**REF, "title": f"Notes {tag}", "head": branch, "base": "main"},
    )


AgentFn = Callable[[Agent, str], Awaitable[None]]
OURS: dict[str, AgentFn] = {
    "diagnose_ci": ours_diagnose_ci,
    "merge_ready": ours_merge_ready,
    "triage_issue": ours_triage_issue,
    "ship_5_files": ours_ship_5_files,
    "address_review": ours_address_review,
}
REFERENCE: dict[str, AgentFn] = {
    "diagnose_ci": ref_diagnose_ci,
    "merge_ready": ref_merge_ready,
    "triage_issue": ref_triage_issue,
    "ship_5_files": ref_ship_5_files,
}

# --- completion, from the forge ---------------------------------------------------------------


def api(forge: Forge, token: str) -> httpx.Client:
    return httpx.Client(
        base_url=forge.base_url, headers={"Authorization": f"Bearer {token}"}, timeout=30
    )


def failing_tests(forge: Forge, token: str) -> set[str]:
    """pytest's FAILED ids in the logs of PR #1's failed jobs, as the forge serves them."""
    run = forge.state.extensions["collab_demo"]["runs"]["pr1"]
    found: set[str] = set()
    with api(forge, token) as http:
        for job in run["jobs"].values():
            log = http.get(f"/repos/{REPO}/actions/jobs/{job}/logs", follow_redirects=True).text
            found |= set(re.findall(r"FAILED (\S+::\S+)", log))
    return found


def blockers_truth(forge: Forge) -> set[str]:
    demo = forge.state.extensions["collab_demo"]
    truth = {"approvals"} if demo["protection"]["required_approvals"] else set()
    if demo["pulls"]["conflicting"]["conflicts"]:
        truth.add("conflicts")
    if demo["threads"]["unresolved"]:
        truth.add("unresolved_threads")
    if demo["runs"]["pr1"]["conclusion"] == "failure":
        truth.add("checks_failing")
    return truth


def reference_blockers(texts: list[str]) -> set[str]:
    """What the reference agent can conclude from its answers: conflicts from `mergeable`,
    failing checks from the combined status, missing approvals from the reviews."""
    pull, status, reviews = (json.loads(t) for t in texts[:3])
    found = {"conflicts"} if pull.get("mergeable") is False else set()
    if status.get("state") == "failure":
        found.add("checks_failing")
    if not any(r.get("state") == "APPROVED" for r in reviews):
        found.add("approvals")
    return found


def completed(forge: Forge, token: str, workflow: str, tag: str, agent: Agent, ours: bool) -> bool:
    with api(forge, token) as http:
        if workflow == "diagnose_ci":
            handed = "".join(agent.texts)
            return all(test in handed for test in failing_tests(forge, token))
        if workflow == "merge_ready":
            if not ours:
                return blockers_truth(forge) <= reference_blockers(agent.texts)
            kinds = {b["kind"] for b in json.loads(agent.texts[0])["blocking"]}
            return blockers_truth(forge) <= kinds
        if workflow == "triage_issue":
            issue = http.get(f"/repos/{REPO}/issues/{ISSUE}").json()
            comments = http.get(f"/repos/{REPO}/issues/{ISSUE}/comments").json()
            labelled = f"triage-{tag}" in {label["name"] for label in issue["labels"]}
            return labelled and any(tag in c["body"] for c in comments)
        if workflow == "ship_5_files":
            pulls = http.get(f"/repos/{REPO}/pulls", params={"head": f"{OWNER}:bench/{tag}"})
            found = [p for p in pulls.json() if p["head"]["ref"] == f"bench/{tag}"]
            if len(found) != 1:
                return False
            files = http.get(f"/repos/{REPO}/pulls/{found[0]['number']}/files").json()
            return sorted(f["filename"] for f in files) == [f["path"] for f in five_files(tag)]
        if workflow == "address_review":
            return review_addressed(forge, http)
    return False


THREADS = """query($owner: String!, $name: String!) { repository(owner: $owner, name: $name) {
  pullRequest(number: 1) { reviewThreads(first: 50) { nodes { id isResolved } }
  commits(last: 2) { nodes { commit { oid } } } } } }"""


def review_addressed(forge: Forge, http: httpx.Client) -> bool:
    demo = forge.state.extensions["collab_demo"]
    before = demo["pulls"]["conflicting"]["head_sha"]
    variables = {"owner": OWNER, "name": NAME}
    answer = http.post("/graphql", json={"query": THREADS, "variables": variables})
    pull = answer.json()["data"]["repository"]["pullRequest"]
    resolved = {n["id"] for n in pull["reviewThreads"]["nodes"] if n["isResolved"]}
    oids = [n["commit"]["oid"] for n in pull["commits"]["nodes"]]  # oldest first
    one_commit = len(oids) >= 2 and oids[-2] == before  # exactly one commit on the old head
    return set(demo["threads"]["unresolved"]) <= resolved and one_commit


# --- running --------------------------------------------------------------------------------

SCENARIOS: dict[str, tuple[str, ...]] = {
    **{workflow: (workflow,) for workflow in ORDER},
    "ship+triage": ("ship_5_files", "triage_issue"),  # a new user's first two tasks
}
PAUSES = (0.0, 1.0)  # immediately after the list, and after a model's first turn


@dataclass
class Measure:
    calls: int
    text_bytes: int
    requests: int
    round_trips: int  # sequential: requests whose spans overlap are one
    from_spawn_s: float  # spawn to the last answer, less the pause
    from_list_s: float  # the tools/list answer to the last answer, less the pause
    per_call_ms: list[float]
    complete: bool


def our_command(forge: Forge, token: str, home: str) -> tuple[list[str], dict[str, str], str]:
    env = {
        "PATH": os.environ["PATH"],
        "HOME": home,
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_AUTO_APPROVE": "true",  # the reference server has no gate to pass
        "GITHUB_MCP_APPROVAL_MODE": "env",
        "GITHUB_MCP_AUDIT_LOG": f"{home}/audit.jsonl",
        "GITHUB_MCP_WORKSPACE_DIR": f"{home}/ws",
        "GITHUB_MCP_LOG_LEVEL": "WARNING",
    }
    return [sys.executable, str(TREE / "main.py"), "serve"], env, str(TREE)


def reference_command(forge: Forge, token: str) -> tuple[list[str], dict[str, str], str]:
    command, env = node_command(forge.base_url, token)
    return command, env, str(ROOT)


class Timed:
    """A tool-calling function that notes each call's time."""

    def __init__(self, call: CallTool) -> None:
        self.call = call
        self.times: list[float] = []

    async def __call__(self, name: str, args: dict[str, Any]) -> tuple[str, bool]:
        started = time.perf_counter()
        try:
            return await self.call(name, args)
        finally:
            self.times.append((time.perf_counter() - started) * 1000)


@asynccontextmanager
async def connected(command: list[str], env: dict[str, str], cwd: str):
    """A spawned, initialized server whose tools are listed (and nothing more: the clock
    runs from the spawn), its spawn and list times, and its tool-calling function."""
    if CLIENT == "line":
        client = await LineClient.start(command, env, cwd)

        async def call_line(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            result = await client.call_tool(name, args)
            text = "".join(c.get("text", "") for c in result.get("content") or [])
            return text, bool(result.get("isError"))

        try:
            yield client.spawned, client.listed, call_line
        finally:
            await client.close()
        return
    spawned = time.perf_counter()
    transport = StdioTransport(command[0], command[1:], env=env, cwd=cwd)
    async with Client(transport, timeout=120) as fastmcp_client:
        await fastmcp_client.list_tools()  # as a client does before its first call
        listed = time.perf_counter()

        async def call_fastmcp(name: str, args: dict[str, Any]) -> tuple[str, bool]:
            result = await fastmcp_client.call_tool(name, args, raise_on_error=False)
            return "".join(getattr(c, "text", "") for c in result.content), result.is_error

        yield spawned, listed, call_fastmcp


async def measure(
    forge: Forge, token: str, scenario: str, ours: bool, home: str, pause: float
) -> Measure:
    tag = f"{'o' if ours else 'r'}{uuid.uuid4().hex[:8]}"
    workflows = SCENARIOS[scenario]
    command, env, cwd = our_command(forge, token, home) if ours else reference_command(forge, token)
    if "merge_ready" in workflows:
        set_mergeability_delay(forge, 1, REPO, 1)  # a fresh PR: GitHub has not computed it
    forge.clear_requests()
    async with connected(command, env, cwd) as (spawned, listed, call_tool):
        timed = Timed(call_tool)
        agent = Agent(timed)
        await asyncio.sleep(pause)
        for workflow in workflows:
            await (OURS if ours else REFERENCE)[workflow](agent, tag)
        done = time.perf_counter()
    log = forge.requests()
    requests, trips = len(log), round_trips(log)
    complete = all(completed(forge, token, w, tag, agent, ours) for w in workflows)
    return Measure(
        agent.calls,
        agent.text_bytes,
        requests,
        trips,
        done - spawned - pause,
        done - listed - pause,
        timed.times,
        complete,
    )


def served_by(scenario: str, reference: bool) -> bool:
    return not reference or all(w in REFERENCE for w in SCENARIOS[scenario])


async def round_at(latency_ms: int, reference: bool) -> dict[tuple[str, float, bool], Measure]:
    forge = Forge()
    forge.start()
    try:
        seed_demo(forge)
        token = forge.create_token(login="octocat")
        forge.set_latency(latency_ms)
        found: dict[tuple[str, float, bool], Measure] = {}
        with tempfile.TemporaryDirectory() as home:
            for scenario in SCENARIOS:
                for pause in PAUSES:
                    found[scenario, pause, True] = await measure(
                        forge, token, scenario, True, home, pause
                    )
                    if reference and served_by(scenario, True):
                        found[scenario, pause, False] = await measure(
                            forge, token, scenario, False, home, pause
                        )
        return found
    finally:
        forge.stop()


def median(values: list[Measure]) -> Measure:
    calls = [m.per_call_ms for m in values]
    return Measure(
        calls=int(statistics.median(m.calls for m in values)),
        text_bytes=int(statistics.median(m.text_bytes for m in values)),
        requests=int(statistics.median(m.requests for m in values)),
        round_trips=int(statistics.median(m.round_trips for m in values)),
        from_spawn_s=statistics.median(m.from_spawn_s for m in values),
        from_list_s=statistics.median(m.from_list_s for m in values),
        per_call_ms=[statistics.median(c) for c in zip(*calls, strict=False)],
        complete=all(m.complete for m in values),
    )


def cell(m: Measure | None) -> str:
    if m is None:
        return "n/a (no tools for it) |" + " |" * 5
    done = "yes" if m.complete else "**no**"
    per_call = " ".join(f"{t:.0f}" for t in m.per_call_ms)
    return (
        f"{m.calls} | {m.requests} / {m.round_trips} | {m.from_spawn_s * 1000:,.0f} | "
        f"{m.from_list_s * 1000:,.0f} | {per_call} | {done} |"
    )


def table(results: dict[int, dict[tuple[str, float, bool], list[Measure]]]) -> str:
    lines = [
        "| scenario | latency | pause | ours: calls | requests / round trips | from spawn ms "
        "| from list ms | per call ms | done | reference: calls | requests / round trips "
        "| from spawn ms | from list ms "
        "| per call ms | done | spawn ratio | list ratio |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for scenario in SCENARIOS:
        for latency, found in results.items():
            for pause in PAUSES:
                ours = median(found[scenario, pause, True])
                ref_runs = found.get((scenario, pause, False))
                ref = median(ref_runs) if ref_runs else None
                usable = ref is not None and ref.complete
                spawn = f"{ours.from_spawn_s / ref.from_spawn_s:.2f}x" if usable else "-"
                listed = f"{ours.from_list_s / ref.from_list_s:.2f}x" if usable else "-"
                lines.append(
                    f"| {scenario} | {latency} ms | {pause:g} s | {cell(ours)} {cell(ref)} "
                    f"{spawn} | {listed} |"
                )
    return "\n".join(lines)


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--no-reference", action="store_true")
    parser.add_argument("--tree", type=Path, default=ROOT, help="run our server from here")
    parser.add_argument("--client", choices=("line", "fastmcp"), default="line")
    parser.add_argument("--only", choices=tuple(SCENARIOS), action="append")
    args = parser.parse_args()
    global TREE, CLIENT
    TREE = args.tree.resolve()
    CLIENT = args.client
    for name in [name for name in SCENARIOS if args.only and name not in args.only]:
        del SCENARIOS[name]
    results: dict[int, dict[tuple[str, float, bool], list[Measure]]] = {}
    for latency in (0, 50):
        collected: dict[tuple[str, float, bool], list[Measure]] = {}
        for _ in range(args.rounds):
            for key, value in (await round_at(latency, not args.no_reference)).items():
                collected.setdefault(key, []).append(value)
        results[latency] = collected
    print(f"load average after the run: {os.getloadavg()[0]:.2f}; rounds: {args.rounds}; "
          f"{CLIENT} client")  # fmt: skip
    print(table(results))


if __name__ == "__main__":
    asyncio.run(main())
