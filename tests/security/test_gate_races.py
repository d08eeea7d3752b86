"""A merge lands only in the base that was authorised.

The attack: retarget a PR onto a protected branch (`update_pull_request(base=...)`)
while `merge_pull_request` runs, so the gate approves the old, unprotected base and
the merge goes into the protected one. Evidence comes from the forge: the protected
branch head, the PR's base as the forge reports it, and the forge's request log.
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from pathlib import Path
from typing import Any

import httpx2 as httpx
import pytest

from tests.conftest import call_tool, error_code, mcp_client
from tests.test_tools_write import head

PROTECTED = "release/1.0"
OPEN_BASE = "integration"
ROUNDS = 6


@pytest.fixture
def race_repo(forge) -> str:
    full_name = f"race-org/merge-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(
        full_name,
        {"README.md": "# race\n"},
        branches={PROTECTED: {}, OPEN_BASE: {}},
    )
    return full_name


@pytest.fixture
def forge_latency(forge):
    """Set the forge's simulated latency through its admin API; reset afterwards."""

    def put(latency_ms: int) -> None:
        answer = httpx.patch(
            forge.base_url + "/_sandbox/settings",
            json={"latency_ms": latency_ms},
            headers={"Authorization": f"Bearer {forge.admin_token}"},
        )
        assert answer.status_code == 200, answer.text

    yield put
    put(0)


async def _open_pr(client, full_name: str, n: int) -> int:
    topic = f"topic-{n}"
    is_error, made = await call_tool(
        client, "create_branch", {"full_name": full_name, "branch": topic, "from_ref": OPEN_BASE}
    )
    assert not is_error, made
    is_error, commit = await call_tool(
        client,
        "commit_files",
        {
            "full_name": full_name,
            "branch": topic,
            "message": f"change {n}",
            "files": [{"path": f"change-{n}.txt", "content": f"{n}\n"}],
        },
    )
    assert not is_error, commit
    is_error, pr = await call_tool(
        client,
        "create_pull_request",
        {"full_name": full_name, "head": topic, "base": OPEN_BASE, "title": f"change {n}"},
    )
    assert not is_error, pr
    return pr["number"]


def _forge_pr(forge, forge_token: str, full_name: str, number: int) -> dict[str, Any]:
    answer = httpx.get(
        f"{forge.base_url}/repos/{full_name}/pulls/{number}",
        headers={"Authorization": f"Bearer {forge_token}"},
    )
    assert answer.status_code == 200, answer.text
    return answer.json()


def _audit(path: Path, tool: str) -> list[dict[str, Any]]:
    lines = path.read_text().splitlines() if path.exists() else []
    return [e for e in map(json.loads, lines) if e["tool"] == tool]


async def test_retarget_racing_a_merge_never_reaches_the_protected_base(
    make_runtime, forge, forge_token, race_repo, forge_latency
):
    rt = make_runtime(protected_branches="release/*")
    protected_before = head(forge, race_repo, PROTECTED)
    async with mcp_client(rt) as client:
        numbers = [await _open_pr(client, race_repo, n) for n in range(ROUNDS)]
        forge_latency(100)
        outcomes = []
        for number in numbers:
            pr = {"full_name": race_repo, "number": number}
            retarget, merge = await asyncio.gather(
                call_tool(client, "update_pull_request", pr | {"base": PROTECTED}),
                call_tool(client, "merge_pull_request", pr),
            )
            outcomes.append((retarget, merge))
            assert head(forge, race_repo, PROTECTED) == protected_before
    for (_, retarget), (merge_failed, merge) in outcomes:
        assert error_code(retarget) == "write_not_allowed"  # retargeting is itself gated
        assert not merge_failed, merge
        assert merge["base"] == OPEN_BASE
    for number in numbers:
        forge_pr = _forge_pr(forge, forge_token, race_repo, number)
        assert forge_pr["merged"] is True and forge_pr["base"]["ref"] == OPEN_BASE
    merges = _audit(rt.settings.audit_log, "merge_pull_request")
    assert [m["ref"] for m in merges] == [OPEN_BASE] * ROUNDS
    assert head(forge, race_repo, PROTECTED) == protected_before


async def test_approved_retarget_and_merge_are_serialised_and_audited_truthfully(
    make_runtime, forge, forge_token, race_repo, forge_latency
):
    """With approval both writes may run; they run one after the other, and the audit
    line names the base the forge says the PR was merged into."""
    rt = make_runtime(protected_branches="release/*")
    async with mcp_client(rt) as client:
        numbers = [await _open_pr(client, race_repo, n) for n in range(ROUNDS)]
        assert not (await call_tool(client, "authorize_write_actions", {"approved": True}))[0]
        forge_latency(100)
        forge.clear_requests()
        for number in numbers:
            pr = {"full_name": race_repo, "number": number}
            await asyncio.gather(
                call_tool(client, "update_pull_request", pr | {"base": PROTECTED}),
                call_tool(client, "merge_pull_request", pr),
            )
    log = forge.requests()
    # A gated write also reads the PR it binds its approval to, and a retarget re-reads it
    # just before its PATCH (pipeline/approval_binding.py); a merge into the open base is ungated.
    update_first = ["GET", "GET", "GET", "PATCH", "GET", "GET", "GET", "PUT", "GET"]
    merge_first = ["GET", "GET", "PUT", "GET", "GET", "GET", "GET", "PATCH"]
    bases = []
    for number in numbers:
        forge_pr = _forge_pr(forge, forge_token, race_repo, number)
        assert forge_pr["merged"] is True
        bases.append(forge_pr["base"]["ref"])
        # Each call's requests come as one block: nothing interleaves with the merge.
        path = f"/repos/{race_repo}/pulls/{number}"
        trail = [e["method"] for e in log if e["path"] in (path, path + "/merge")]
        assert trail in (update_first, merge_first), trail
    merges = _audit(rt.settings.audit_log, "merge_pull_request")
    assert all(m["outcome"] == "ok" for m in merges) and len(merges) == ROUNDS
    assert sorted(m["ref"] for m in merges) == sorted(bases)


async def test_base_changed_after_the_gate_refuses_the_merge(
    make_runtime, forge, forge_token, race_repo
):
    """Someone outside retargets the PR while the gate is deciding: the merge is
    refused with `conflict`, and the audit line names the real base."""
    rt = make_runtime(protected_branches="release/*")
    protected_before = head(forge, race_repo, PROTECTED)
    async with mcp_client(rt) as setup:
        number = await _open_pr(setup, race_repo, 0)
    rt = make_runtime(protected_branches="release/*")  # nothing cached: the gate reads the repo
    # Hold the gate's read of the repository (its default branch) long enough to retarget.
    forge.add_fault(path=f"^/repos/{race_repo}$", method="GET", latency_ms=1500, times=1)
    forge.clear_requests()
    async with mcp_client(rt) as client:
        merging = asyncio.ensure_future(
            call_tool(client, "merge_pull_request", {"full_name": race_repo, "number": number})
        )
        deadline = time.monotonic() + 120
        while not any(
            e["method"] == "GET" and e["path"] == f"/repos/{race_repo}" for e in forge.requests()
        ):
            assert time.monotonic() < deadline, "the gate never read the repository"
            assert not merging.done(), merging.result()
            await asyncio.sleep(0.01)
        retarget = httpx.patch(
            f"{forge.base_url}/repos/{race_repo}/pulls/{number}",
            json={"base": PROTECTED},
            headers={"Authorization": f"Bearer {forge_token}"},
        )
        assert retarget.status_code == 200, retarget.text
        is_error, payload = await merging
    assert is_error and error_code(payload) == "conflict", payload
    assert PROTECTED in payload["error"]["message"]
    assert head(forge, race_repo, PROTECTED) == protected_before
    assert not [e for e in forge.requests() if e["method"] == "PUT"]
    forge_pr = _forge_pr(forge, forge_token, race_repo, number)
    assert forge_pr["merged"] is False and forge_pr["base"]["ref"] == PROTECTED
    (line,) = _audit(rt.settings.audit_log, "merge_pull_request")
    assert line["ref"] == PROTECTED and line["outcome"] == "error:conflict"
