"""Write policy as one pure decision: the allow-list, the effective ref, protected branches
and approvals.

`decide(call, settings, known)` takes plain values (the write, the operator's rules, the
facts gathered so far) and returns what happens next: allow, refuse with a reason, or ask
for one more fact (the repository's default branch, the state the write depends on, the
caller's grants, a human's answer). The pipeline fetches that fact (pipeline/gatekeeper.py)
and asks again, so every rule here runs without a forge, a store or an event loop. This
module imports no I/O, async or framework code (tests/unit/test_gate_purity.py).
"""

from __future__ import annotations

import fnmatch
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal, Protocol

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.policy.flow_guard import FlowDecision
from github_mcp.policy.refusals import cross_visibility_refusal, needs_approval, reason_shown


class GateSettings(Protocol):
    """The operator's rules the gate reads (config.Settings has them all)."""

    @property
    def allowlist(self) -> tuple[str, ...]: ...
    @property
    def protected_globs(self) -> tuple[str, ...]: ...
    @property
    def repo_default_overrides(self) -> Mapping[str, str]: ...
    @property
    def controller_repo(self) -> str | None: ...
    @property
    def controller_branch(self) -> str: ...
    @property
    def approval_mode(self) -> str: ...
    @property
    def auto_approve(self) -> bool: ...


@dataclass(frozen=True)
class WriteCall:
    """One write as the gate sees it. `branch` None: the write names no branch."""

    tool: str
    repo: str | None
    branch: str | None
    flow: FlowDecision | None = None  # the cross-visibility guard's decision
    approve_each: bool = False  # no approval window covers this tool
    can_ask: bool = False  # a human can be asked during the call (auto mode)


@dataclass(frozen=True)
class Known:
    """Facts gathered for one decision; None: not looked up yet."""

    default_branch: str | None = None
    bound: bool = False  # the state the write depends on was read (its binding)
    window: bool | None = None  # the caller's approval window is open
    once: bool | None = None  # a one-time approval of this very write was taken
    human: bool | None = None  # the human's answer when asked


@dataclass(frozen=True)
class Allow:
    why: str  # the metric's reason
    logged: str | None = None  # the log line's reason when it differs


@dataclass(frozen=True)
class Refuse:
    reason: str
    error: GitHubMCPError


@dataclass(frozen=True)
class LookUpDefaultBranch:
    repo: str


@dataclass(frozen=True)
class Bind:
    """Read the state the gated write depends on (its binder), before any grant is spent."""

    reason: str


@dataclass(frozen=True)
class CheckGrant:
    """Look at the caller's approval window, then take a one-time approval of this write."""

    kind: Literal["window", "once"]
    reason: str


@dataclass(frozen=True)
class AskHuman:
    reason: str
    shown: str  # what the human reads as the reason


Decision = Allow | Refuse | LookUpDefaultBranch | Bind | CheckGrant | AskHuman


def repo_allowed(settings: GateSettings, full_name: str) -> bool:
    allow = settings.allowlist
    if not allow:
        return True
    name = full_name.lower()
    owner = name.split("/", 1)[0]
    return name in allow or f"{owner}/*" in allow


def not_allowed(full_name: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.REPO_NOT_ALLOWED,
        f"Repository {full_name} is not in this server's allow-list.",
        hint="Ask the operator to add it to GITHUB_MCP_REPO_ALLOWLIST.",
    )


def is_controller_repo(settings: GateSettings, full_name: str) -> bool:
    repo = settings.controller_repo
    return bool(repo and full_name.lower() == repo.lower())


def default_branch(
    settings: GateSettings, full_name: str, known: Known
) -> str | LookUpDefaultBranch:
    """The operator's override, else what GitHub said (asked for when not known)."""
    override = settings.repo_default_overrides.get(full_name.lower())
    if override:
        return override
    return known.default_branch or LookUpDefaultBranch(full_name)


def effective_ref(
    settings: GateSettings, full_name: str, ref: str | None, known: Known
) -> str | LookUpDefaultBranch:
    """The ref a call works on: `main` in the controller's own repository is its branch,
    no ref is the default branch."""
    if is_controller_repo(settings, full_name) and (not ref or ref == "main"):
        return settings.controller_branch
    if ref:
        return ref
    return default_branch(settings, full_name, known)


def protection(
    settings: GateSettings, full_name: str | None, branch: str | None, known: Known
) -> str | LookUpDefaultBranch | None:
    """Why a write to this branch needs an approval (None: it does not)."""
    if branch is None or full_name is None:
        return "unscoped_write"
    if is_controller_repo(settings, full_name) and branch == settings.controller_branch:
        return "controller_branch"
    default = default_branch(settings, full_name, known)
    if isinstance(default, LookUpDefaultBranch):
        return default
    if branch == default:
        return "default_branch"
    for glob in settings.protected_globs:
        if fnmatch.fnmatchcase(branch, glob):
            return "protected_glob"
    return None


def decide(call: WriteCall, settings: GateSettings, known: Known) -> Decision:
    """What happens to this write given what is known; asks for one fact at a time."""
    if call.repo is not None and not repo_allowed(settings, call.repo):
        return Refuse("repo_not_allowed", not_allowed(call.repo))
    reason = protection(settings, call.repo, call.branch, known)
    if isinstance(reason, LookUpDefaultBranch):
        return reason
    flow = call.flow
    if flow is not None and flow.action == "deny":
        return Refuse("cross_visibility", cross_visibility_refusal(flow))
    if flow is not None and flow.action == "ask":
        reason = reason or "cross_visibility"
    if reason is None:
        return Allow("feature_branch")
    return _gated(call, settings, known, reason)


def _gated(call: WriteCall, settings: GateSettings, known: Known, reason: str) -> Decision:
    """A write that needs an approval: its binding, the caller's grants, then a human."""
    if not known.bound:
        return Bind(reason)
    if known.window is None:
        return CheckGrant("window", reason)
    if known.window and (not call.approve_each or settings.auto_approve):
        return Allow(f"approved_{reason}")
    if known.once is None:
        return CheckGrant("once", reason)
    if known.once:
        return Allow(f"approved_once_{reason}")
    if call.can_ask and known.human is None:
        return AskHuman(reason, reason_shown(reason, call.flow))
    if known.human:
        return Allow(f"human_approved_{reason}", logged=f"human_{reason}")
    return Refuse(
        reason,
        needs_approval(
            tool=call.tool, full_name=call.repo, branch=call.branch, reason=reason,
            flow=call.flow, approve_each=call.approve_each, approval_mode=settings.approval_mode,
        ),
    )  # fmt: skip


def holds_window(scope_key: str) -> bool:
    """Whether a scope may hold an approval window: a server-issued session, or the
    stdio process (one client). A principal alone is every client it has."""
    return "/session:" in scope_key or scope_key.startswith("process:")
