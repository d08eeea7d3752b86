"""The facts a human approves a write on, as plain JSON data: who asked, the tool, the
repository and branch, why it needs approval, the title and messages in full, look-alike
warnings, every file with its +/− counts and diff, and the remote state the approval is
bound to (head SHA, base, the commits since it, the files at that head).

One function builds them for every place a human decides: the approval page renders
them as HTML (render.py) and the proposed-write card in an MCP Apps host receives them
as data (github_mcp.apps.approval_card). So the page and the card show the same facts.
Every text is already made visible: characters that hide or reorder text read
`⟨U+202E⟩`; the renderer escapes, never trusts.
"""

from __future__ import annotations

from typing import Any

from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.summary import REASONS, FileChange, WriteSummary
from github_mcp.kernel.hidden_text import make_visible
from github_mcp.services.shared.approved_state import RemoteState

SESSION_WRITES = "Writes to protected branches and unscoped writes in this session"


def v(text: str) -> str:
    return make_visible(text)


def write_facts(found: ApprovalRequest) -> dict[str, Any]:
    """Everything the page and the card show about one approval request."""
    summary = found.summary
    owner = found.scope.principal
    rows = [["Requested by", v(f"{owner.name} ({owner.kind})")]]
    if summary is None:
        return {"rows": [*rows, ["What", SESSION_WRITES]], "session_writes": True}
    return {
        "session_writes": False,
        "tool": v(summary.tool),
        "repository": v(summary.repo) if summary.repo else None,
        "branch": v(summary.branch) if summary.branch else None,
        "reason": v(REASONS.get(summary.reason, summary.reason)),
        "title": v(summary.title) if summary.title else None,
        "rows": rows + _write_rows(summary),
        "warnings": [v(w) for w in summary.warnings],
        "files": [_file(change) for change in summary.files],
        "state": _state(summary.state),
    }


def _write_rows(summary: WriteSummary) -> list[list[str]]:
    rows = [
        ("Tool", summary.tool),
        ("Repository", summary.repo or "—"),
        ("Branch", summary.branch or "— (not a branch write)"),
        ("Why approval", REASONS.get(summary.reason, summary.reason)),
    ]
    if summary.title:
        rows.append(("Title", summary.title))
    return [[v(k), v(value)] for k, value in rows + list(summary.details)]


def _file(change: FileChange) -> dict[str, Any]:
    return {
        "path": v(change.path),
        "change": change.change,
        "added": change.added,
        "removed": change.removed,
        "note": v(change.note),
        "diff": v(change.diff) if change.diff else None,
    }


def _state(state: RemoteState | None) -> dict[str, Any] | None:
    if state is None:
        return None
    return {
        "facts": [[v(name), v(value)] for name, value in state.facts],
        "texts": [[v(k), v(value)] for k, value in state.texts],
        "since": v(state.since) if state.since is not None else None,
        "commits_total": state.commits_total,
        "commits": [{"sha": v(c.sha), "message": v(c.message)} for c in state.commits],
        "files": [
            {
                "path": v(f.path),
                "status": v(f.status),
                "added": f.additions,
                "removed": f.deletions,
                "diff": v(f.patch) if f.patch else None,
            }
            for f in state.files
        ],
    }
