"""Exactly once across replica death: replica A sends four writes (a comment, a commit, a
pull request, a merge) that reach GitHub while A is frozen (SIGSTOP), then A is killed
(SIGKILL) without ever recording their results. The client retries each with the same
idempotency key on replica B. B never re-executes blindly: it waits for A's lease to run
out, takes the claim over as an orphan and reconciles against GitHub's state, so the
forge ends with exactly 1 comment, 1 commit, 1 pull request and 1 merge. Real processes:
redis-server and two `main.py serve` replicas; evidence from the forge's state."""

from __future__ import annotations

import asyncio
import signal
import uuid
from typing import Any

import httpx2 as httpx
import pytest

from tests.replicas.cluster import client
from tests.test_tools_issues_prs import forge_pulls
from tests.test_tools_write import git, head


async def _call(url: str, tool: str, args: dict[str, Any], key: str) -> tuple[bool, Any]:
    async with client(url) as c:
        result = await c.call_tool(tool, args, raise_on_error=False, meta={"idempotency_key": key})
        return result.is_error, result.structured_content


def _arrived(forge, rules: list[int]) -> set[int]:
    return {e.get("fault") for e in forge.requests()} & set(rules)


def _in_flight(forge, rules: list[int]) -> bool:
    seen = {e.get("fault") for e in forge.requests()}
    return all(rule in seen for rule in rules)


def _comments(forge, token: str, repo: str, number: int) -> list[str]:
    answer = httpx.get(
        f"{forge.base_url}/repos/{repo}/issues/{number}/comments",
        params={"per_page": 100},
        headers={"Authorization": f"Bearer {token}"},
        timeout=10,
    )
    answer.raise_for_status()
    return [c["body"] for c in answer.json()]


@pytest.mark.timeout(240)
async def test_frozen_then_killed_replica_writes_each_exactly_once(held_pair, forge, forge_token):
    repo = f"octo-org/death-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(
        repo,
        {"README.md": "x\n"},
        branches={"to-merge": {"m.txt": "m\n"}, "to-pr": {"p.txt": "p\n"}, "work": {}},
    )
    a, b = (r.url for r in held_pair.replicas)
    _, opened = await _call(
        b,
        "create_pull_request",
        {"full_name": repo, "head": "to-merge", "base": "main", "title": "merge me"},
        "setup-" + uuid.uuid4().hex,
    )
    merge_pr = opened["number"]
    work_start = head(forge, repo, "work")
    main_start = head(forge, repo, "main")
    body = "exactly once " + uuid.uuid4().hex
    writes = {
        "comment": (
            "comment_on_pull_request",
            {"full_name": repo, "number": merge_pr, "body": body},
        ),
        "commit": (
            "commit_files",
            {
                "full_name": repo,
                "branch": "work",
                "message": "once",
                "files": [{"path": "once.txt", "content": "once\n"}],
            },
        ),
        "pr": (
            "create_pull_request",
            {"full_name": repo, "head": "to-pr", "base": "main", "title": "once"},
        ),
        "merge": ("merge_pull_request", {"full_name": repo, "number": merge_pr}),
    }
    keys = {name: f"{name}-{uuid.uuid4().hex}" for name in writes}
    rules = [
        # each write is held at the forge until the test lets it go: no clock decides
        forge.add_fault(method="POST", path=rf"/issues/{merge_pr}/comments$", hold=True),
        forge.add_fault(method="PATCH", path=r"/git/refs/heads/work$", hold=True),
        forge.add_fault(method="POST", path=r"/pulls$", hold=True),
        forge.add_fault(method="PUT", path=rf"/pulls/{merge_pr}/merge$", hold=True),
    ]
    first = [
        asyncio.create_task(_call(a, tool, args, keys[name]))
        for name, (tool, args) in writes.items()
    ]
    # Writes to one PR take turns (the per-PR lock): of the comment and the merge, the one
    # that took the lock first is let go, so the other reaches GitHub; then every other
    # write is there unanswered. Conditions, not clocks: pytest's timeout bounds a hang.
    while len(_arrived(forge, rules)) < 3:
        await asyncio.sleep(0.02)
    went_first = rules[0] if rules[0] in _arrived(forge, rules) else rules[3]
    forge.release_fault(went_first)
    rest = [rule for rule in rules if rule != went_first]
    while not _in_flight(forge, rules):
        await asyncio.sleep(0.02)
    assert not [e for e in forge.requests() if e.get("fault") in rest and "duration_ms" in e]
    victim = held_pair.replicas[0]
    victim.proc.send_signal(signal.SIGSTOP)
    for rule in rest:
        forge.release_fault(rule)
    while not all("duration_ms" in e for e in forge.requests() if e.get("fault") in rules):
        await asyncio.sleep(0.1)
    victim.proc.send_signal(signal.SIGKILL)
    victim.proc.wait(10)
    await asyncio.gather(*first, return_exceptions=True)  # A's client sees A die
    # A's writes reached GitHub: the very state a blind retry would duplicate
    assert _comments(forge, forge_token, repo, merge_pr).count(body) == 1
    assert head(forge, repo, "work") != work_start
    assert [p for p in forge_pulls(forge, repo) if p["head"]["ref"] == "to-pr"]

    retried = await asyncio.gather(
        *(_call(b, tool, args, keys[name]) for name, (tool, args) in writes.items())
    )
    answers = dict(zip(writes, retried, strict=True))
    for name, (is_error, payload) in answers.items():
        assert not is_error, (name, payload)

    assert _comments(forge, forge_token, repo, merge_pr).count(body) == 1
    assert len(git(forge, repo, "rev-list", f"{work_start}..work").split()) == 1
    to_pr = [p for p in forge_pulls(forge, repo) if p["head"]["ref"] == "to-pr"]
    assert len(to_pr) == 1
    assert len(git(forge, repo, "rev-list", "--first-parent", f"{main_start}..main").split()) == 1
    assert answers["merge"][1]["sha"] == head(forge, repo, "main")
    assert answers["pr"][1]["number"] == to_pr[0]["number"]
