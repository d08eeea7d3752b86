"""A pull request's overview in one GraphQL request, with the same answer the REST reads
gave: latest opinion per reviewer, checks from check runs and commit statuses."""

from __future__ import annotations

import httpx2 as httpx
import pytest

from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests

REPO = "perf-org/pulls"


def api(forge, login: str) -> httpx.Client:
    token = forge.create_token(login=login)
    return httpx.Client(
        base_url=forge.base_url,
        headers={"Authorization": f"Bearer {token}", "Accept": "application/vnd.github+json"},
        timeout=10,
    )


@pytest.fixture(scope="module")
def pull(forge):
    forge.seed_repo(
        REPO,
        {"app.py": "x = 1\n"},
        branches={"feature": {"app.py": "x = 2\ny = 3\n", "new.md": "# new\n"}},
    )
    forge.add_collaborator(REPO, "alice")
    forge.add_collaborator(REPO, "bob")
    with api(forge, "octocat") as octocat, api(forge, "alice") as alice, api(forge, "bob") as bob:
        created = octocat.post(
            f"/repos/{REPO}/pulls", json={"title": "Perf", "head": "feature", "base": "main"}
        )
        assert created.status_code == 201, created.text
        number, head = created.json()["number"], created.json()["head"]["sha"]
        reviews = f"/repos/{REPO}/pulls/{number}/reviews"
        for client, event in ((alice, "APPROVE"), (alice, "COMMENT"), (bob, "REQUEST_CHANGES")):
            sent = client.post(reviews, json={"event": event, "body": f"{event} here"})
            assert sent.status_code == 200, sent.text
        for state, context in (("success", "ci/unit"), ("failure", "ci/lint")):
            status = octocat.post(
                f"/repos/{REPO}/statuses/{head}", json={"state": state, "context": context}
            )
            assert status.status_code == 201, status.text
    return number


async def test_overview_is_one_request_with_latest_opinions_and_checks(make_runtime, forge, pull):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, overview = await call_tool(
            client, "get_pr_overview", {"full_name": REPO, "number": pull}
        )
        requests = [e["path"] for e in settled_requests(forge)]
        _, missing = await call_tool(client, "get_pr_overview", {"full_name": REPO, "number": 99})
    assert not is_error, overview
    assert requests == ["/graphql"]
    assert overview["head"] == "feature" and overview["base"] == "main"
    assert overview["state"] == "open" and overview["author"] == "octocat"
    assert {f["path"]: f["status"] for f in overview["files"]} == {
        "app.py": "modified",
        "new.md": "added",
    }
    assert overview["changed_files"] == 2 and overview["commits"] >= 1
    # alice commented after approving: her approval still stands.
    assert overview["reviews"] == [
        {"reviewer": "alice", "state": "APPROVED"},
        {"reviewer": "bob", "state": "CHANGES_REQUESTED"},
    ]
    checks = overview["checks"]
    assert (checks["total"], checks["passed"], checks["failed"]) == (2, 1, 1)
    assert checks["failing"] == ["ci/lint"]
    assert error_code(missing) == "not_found"


# Long enough that a loaded machine, starting one of several concurrent requests late,
# still starts it before the others end (at 50 ms a busy CI split one wave in two).
LATENCY_MS = 400


def waves(entries: list[dict]) -> list[list[str]]:
    """Requests grouped into sequential round trips: overlapping spans are one wave."""
    spans = sorted((e["ts"], e["ts"] + e["duration_ms"] / 1000, e["path"]) for e in entries)
    grouped: list[list[str]] = []
    end = float("-inf")
    for start, stop, path in spans:
        if start > end:
            grouped.append([])
        grouped[-1].append(path)
        end = max(end, stop)
    return grouped


async def test_merge_readiness_is_two_round_trips(make_runtime, forge, pull):
    """The PR first (its base and head name everything else), then the rest at once: the
    protection and the branch summary that stands in for it are asked together."""
    rt = make_runtime()
    forge.set_latency(LATENCY_MS)  # every request spans it, so concurrent ones overlap
    try:
        async with mcp_client(rt) as client:
            forge.clear_requests()
            is_error, ready = await call_tool(
                client,
                "check_merge_readiness",
                {"full_name": REPO, "number": pull, "timeout_seconds": 0},
            )
            entries = settled_requests(forge)
    finally:
        forge.set_latency(0)
    assert not is_error, ready
    grouped = waves(entries)
    assert grouped[0] == [f"/repos/{REPO}/pulls/{pull}"]
    assert len(grouped) == 2, grouped
    assert {f"/repos/{REPO}/branches/main/protection", f"/repos/{REPO}/branches/main"} <= set(
        grouped[1]
    )


async def test_failing_tests_are_three_round_trips(make_runtime, forge):
    """The PR (its head), its checks, then each failed job with its log and the commit's
    tree all at once: none of the third wave needs another of it."""
    rt = make_runtime()
    forge.set_latency(LATENCY_MS)
    try:
        async with mcp_client(rt) as client:
            forge.clear_requests()
            is_error, found = await call_tool(client, "get_failing_tests", {"pr": f"{DEMO_REPO}#1"})
            entries = settled_requests(forge)
    finally:
        forge.set_latency(0)
    assert not is_error, found
    assert found["total_failures"] == 9  # the demo's failing tests, files mapped to their jobs
    grouped = waves(entries)
    assert len(grouped) == 3, grouped
    assert grouped[0] == [f"/repos/{DEMO_REPO}/pulls/1"]
    last = grouped[2]
    jobs = [p for p in last if p.split("/")[-2] == "jobs"]
    assert len(jobs) == 2 and all(f"{p}/logs" in last for p in jobs)
    assert any("/git/trees/" in p for p in last)
