"""Approvals a human gives: open requests, what they show, and (in submodules that need
the MCP framework) asking the client and the approval page.

`human` asks through the client (URL or form elicitation, or a refusal carrying the
page's link); `page` serves the approval page. Both are imported where they are used, so
the gate can hold its open requests without importing the MCP framework."""

from __future__ import annotations

from github_mcp.approvals.record import CHOICES, ApprovalRequest, Choice
from github_mcp.approvals.requests import (
    PAGE_PATH,
    PendingApprovals,
    RequestClosed,
    fingerprint,
)
from github_mcp.approvals.summary import (
    FileChange,
    WriteSummary,
    count_lines,
    patch_changes,
    summarize,
)

__all__ = [
    "CHOICES",
    "PAGE_PATH",
    "ApprovalRequest",
    "Choice",
    "FileChange",
    "PendingApprovals",
    "RequestClosed",
    "WriteSummary",
    "count_lines",
    "fingerprint",
    "patch_changes",
    "summarize",
]
