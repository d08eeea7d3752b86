"""The fault matrix in the suite: every write tool x every fault kind, over every request
the tool makes (discovered from a clean run), judged from the forge's state.
`python bench/fault_matrix.py` runs the same cells and prints the table."""

from __future__ import annotations

import pytest

from tests.reliability.fault_matrix import CASES, FAULT_KINDS, Request, run_tool, table

# Writes each tool must be seen making in its clean run (so discovery cannot shrink).
MUST_FAULT = {
    "commit_files": {"POST /git/trees", "POST /git/commits", "PATCH /git/refs/heads/fm-{cell}"},
    "create_branch": {"POST /git/refs"},
    "apply_text_update_and_commit": {
        "POST /git/trees",
        "POST /git/commits",
        "PATCH /git/refs/heads/fm-{cell}",
    },
    "update_files_and_open_pr": {
        "POST /git/trees",
        "POST /git/commits",
        "POST /git/refs",
        "POST /pulls",
    },
    "create_pull_request": {"POST /pulls"},
    "merge_pull_request": {"PUT /pulls/{n}/merge"},
    "comment_on_issue": {"POST /issues/{n}/comments"},
}


@pytest.fixture(scope="module")
def discovered(forge) -> dict[str, list[Request]]:
    """Each tool's clean run is checked and its requests found once per worker (by whichever
    of its cells comes first); every cell still starts from fresh state of its own."""
    return {}


@pytest.mark.parametrize("fault", list(FAULT_KINDS))
@pytest.mark.parametrize("tool", list(CASES))
async def test_fault_matrix(forge, make_runtime, discovered, tool, fault):
    results = await run_tool(
        forge, tool, lambda: make_runtime(auto_approve=True), [fault], discovered
    )
    print(table(results))
    faulted = {r.request for r in results}
    assert MUST_FAULT[tool] <= faulted, sorted(faulted)
    bad = [r for r in results if not r.accepted]
    assert not bad, "\n".join(f"{r.request} x {r.fault}: {r.outcome} {r.detail}" for r in bad)
