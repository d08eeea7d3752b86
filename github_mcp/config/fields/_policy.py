"""Settings fields: the write policy (allow-list, controller repository, protected branches,
approvals, audit log).
Mixed into `Settings` in github_mcp/config/__init__.py."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from github_mcp.config.fields._access import env
from github_mcp.config.fields._state_home import InStateHome


class WritePolicySettings(BaseSettings):
    """What may be written where, and how a gated write is approved."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    repo_allowlist: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_REPO_ALLOWLIST"),
        description="Comma-separated `owner/repo` or `owner/*` entries; empty allows all. "
        "Applies to reads and writes.",
    )
    controller_repo: str | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_CONTROLLER_REPO"),
        description="The controller's own repository (`owner/repo`).",
    )
    controller_branch: str = Field(
        "main",
        validation_alias=env("GITHUB_MCP_CONTROLLER_BRANCH"),
        description="Branch that a missing ref or `main` maps to in the controller repo.",
    )
    protected_branches: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_PROTECTED_BRANCHES"),
        description="Comma-separated branch globs that need approval to write "
        "(the default branch and the controller branch always do).",
    )
    auto_approve: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_AUTO_APPROVE"),
        description="Initial approval state for gated writes.",
    )
    approval_mode: Literal["auto", "tool", "elicit", "env"] = Field(
        "auto",
        validation_alias=env("GITHUB_MCP_APPROVAL_MODE"),
        description="How a gated write is approved. `auto`: the human is asked on the "
        "server's approval page (URL elicitation) or in the client's form (form "
        "elicitation); over HTTP a client with neither gets a refusal carrying the page's "
        "link for the human, and the model's own `authorize_write_actions` call never "
        "approves; over stdio with neither, `tool` behaviour (relying on the client's own "
        "tool confirmation). `tool`: `authorize_write_actions` toggles approval (weaker: "
        "the model can approve its own writes unless the client asks its human first). "
        "`elicit`: `authorize_write_actions` asks through form elicitation. `env`: only "
        "GITHUB_MCP_AUTO_APPROVE.",
    )
    approval_window_minutes: int = Field(
        15,
        ge=1,
        le=1440,
        validation_alias=env("GITHUB_MCP_APPROVAL_WINDOW_MINUTES"),
        description="The N of the approval page's and form's 'approve for N minutes' "
        "choice: gated writes of that principal's session pass for this long.",
    )
    approval_link_ttl_seconds: int = Field(
        600,
        ge=30,
        le=86400,
        validation_alias=env("GITHUB_MCP_APPROVAL_LINK_TTL_SECONDS"),
        description="How long an approval page link stays valid (`auto` mode). Each link "
        "is single-use and bound to the principal whose write it approves.",
    )
    approval_ttl_seconds: int = Field(
        900,
        ge=1,
        le=86400,
        validation_alias=env("GITHUB_MCP_APPROVAL_TTL_SECONDS"),
        description="How long a session's approval (`authorize_write_actions`, or "
        "approving a session's writes) lasts, in seconds: 1 to 86400, default 15 "
        "minutes; there is no 'until restart'. An approval also ends with its session, "
        "when the user signs out or in again, or when revoked on /status. A client "
        "without a session gets no approval window at all: each gated write is approved "
        "on its own.",
    )
    approval_prompt_timeout_seconds: float = Field(
        120.0,
        gt=0,
        le=3600,
        validation_alias=env("GITHUB_MCP_APPROVAL_PROMPT_TIMEOUT_SECONDS"),
        description="How long a call waits for the human to answer an elicitation prompt "
        "(`elicit` and `auto` modes) or to decide on the approval page it opened (`auto`) "
        "before it gives up with `timeout`, granting nothing (a page link stays usable).",
    )
    cross_visibility: Literal["approve", "deny", "allow"] = Field(
        "approve",
        validation_alias=env("GITHUB_MCP_CROSS_VISIBILITY"),
        description="The guard against the toxic agent flow: once a session has read from "
        "a repository that is not public, a write that publishes to a public one (a "
        "branch, commit, pull request, issue or comment, feature branches included) "
        "needs a human's approval (`approve`), is refused (`deny`), or is treated as any "
        "other write (`allow`). The approval names the private repositories read.",
    )
    allow_repo_delete: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_ALLOW_REPO_DELETE"),
        description="When true, `delete_repository` may delete a repository on the "
        "allow-list that the caller administers, each time with a human's approval of that "
        "very call (no approval window covers it), bound to the repository as shown to "
        "them. Off (the default): it is refused before anything is asked or sent to GitHub.",
    )
    signed_commits: Literal["auto", "always", "never"] = Field(
        "auto",
        validation_alias=env("GITHUB_MCP_SIGNED_COMMITS"),
        description="How the write tools make commits. `auto`: through GraphQL "
        "`createCommitOnBranch` (GitHub signs the commit, shown as verified) when the "
        "branch's rules require signed commits (read from the rules for the branch, and "
        "the classic protection where readable), else through the Git data API. "
        "`always`: through `createCommitOnBranch` whenever it can express the change "
        "(not file modes, symlinks or submodules: those fall back to the Git data API). "
        "`never`: always the Git data API (unsigned; a branch that requires signatures "
        "refuses the commit). See docs/SAFETY.md (Signed commits).",
    )
    audit_log: Path = Field(
        default_factory=InStateHome("audit.jsonl"),
        validation_alias=env("GITHUB_MCP_AUDIT_LOG"),
        description="JSON-lines audit log of executed writes (fsync'd).",
    )
