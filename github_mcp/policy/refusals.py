"""What the gate says when a write needs a human: the refusal's message and hint, and
the reason a human who is asked is shown."""

from __future__ import annotations

from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.policy.flow_guard import FlowDecision

EACH_CALL_HINT = (
    "Each {tool} call is approved on its own: the human is asked about this very call "
    "(the approval page, or the client's form); an approval window does not cover it."
)

# How to get an approval, by GITHUB_MCP_APPROVAL_MODE.
_HOW_TO_APPROVE = {
    "env": "an operator must set GITHUB_MCP_AUTO_APPROVE=true.",
    "auto": "ask the human to approve: call authorize_write_actions(approved=true), "
    "which asks them (or which your client confirms with them).",
    "elicit": "call authorize_write_actions(approved=true) so the human is asked.",
    "tool": "ask the human to approve, then call authorize_write_actions(approved=true).",
}


def needs_approval(
    *,
    tool: str,
    full_name: str | None,
    branch: str | None,
    reason: str,
    flow: FlowDecision | None,
    approve_each: bool,
    approval_mode: str,
) -> GitHubMCPError:
    """The refusal of a gated write nobody approved."""
    where = {
        "unscoped_write": "This write is not scoped to a branch",
        "default_branch": f"{branch} is the default branch of {full_name}",
        "controller_branch": f"{branch} is the controller branch",
        "protected_glob": f"{branch} matches a protected-branch pattern",
        "cross_visibility": "This write publishes to a public place",
    }[reason]
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        f"{where}; it needs approval.",
        hint=EACH_CALL_HINT.format(tool=tool)
        if approve_each
        else approval_hint(reason, approval_mode),
        reason=reason,
        **flow_details(flow),
    )


def cross_visibility_refusal(flow: FlowDecision) -> GitHubMCPError:
    """The refusal of a write the cross-visibility guard denies outright."""
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        f"Refused: {flow.explain()}.",
        hint="GITHUB_MCP_CROSS_VISIBILITY=deny: a session that read a private "
        "repository cannot publish to a public one. Start a new session for the "
        "public work, or ask the operator.",
        reason="cross_visibility",
        **flow_details(flow),
    )


def approval_hint(reason: str, approval_mode: str) -> str:
    branch_hint = (
        "Write to a feature branch (create_branch) and open a pull request, or "
        if reason not in ("unscoped_write", "cross_visibility")
        else ""
    )
    return branch_hint + _HOW_TO_APPROVE.get(approval_mode, _HOW_TO_APPROVE["tool"])


def reason_shown(reason: str, flow: FlowDecision | None) -> str:
    """The reason the human is shown: the guard's, naming the private repositories read,
    when it asks (with the branch's own reason, if any)."""
    if flow is None or flow.action != "ask":
        return reason
    also = "" if reason == "cross_visibility" else f"; also {reason}"
    return f"cross_visibility: {flow.explain()}{also}"


def flow_details(flow: FlowDecision | None) -> dict[str, Any]:
    if flow is None or flow.action == "allow":
        return {}
    return {"private_repos_read": list(flow.private_read)}
