"""Meta tools about the server: its configuration and environment, the GitHub identity and
rate limit behind it, and its cache. The tools about tools are in `introspection.py`, write
approval in `write_approval.py`."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.params import FullName
from github_mcp.pipeline.registry import Call, tool
from github_mcp.pipeline.runtime import VERSION
from github_mcp.services.meta import check_environment
from github_mcp.services.shared import account
from github_mcp.services.shared.account import RateResource

TOOLSET = "meta"


class ApprovalPolicy(BaseModel):
    mode: str
    approved: bool
    auto_approve: bool
    expires_in_s: float | None = None
    toggle_tool: str = "authorize_write_actions"
    protected: list[str]
    cross_visibility: str = Field(
        "approve", description="After a private read, public writes: approve, deny or allow."
    )
    repos_read: list[str] = Field(
        default_factory=list, description="Repositories this session read (this replica)."
    )


class ServerConfig(BaseModel):
    version: str
    github_api_url: str
    credential_kind: str
    read_only: bool
    toolsets: list[str]
    repo_allowlist: list[str]
    controller_repo: str | None = None
    controller_branch: str
    write_policy: ApprovalPolicy
    workspace_sandbox: str


@tool(toolset=TOOLSET, repo_arg=None)
async def get_server_config(call: Call) -> ServerConfig:
    """Non-secret snapshot of the configuration and the write policy for this session."""
    s = call.rt.settings
    gate = call.rt.gate
    protected = ["<default branch>"]
    if s.controller_repo:
        protected.append(f"{s.controller_repo}@{s.controller_branch}")
    protected.extend(s.protected_globs)
    return ServerConfig(
        version=VERSION,
        github_api_url=s.github_api_url,
        credential_kind=call.rt.token_kind,
        read_only=s.read_only,
        toolsets=list(s.toolset_list),
        repo_allowlist=list(s.allowlist),
        controller_repo=s.controller_repo,
        controller_branch=s.controller_branch,
        write_policy=ApprovalPolicy(
            mode=s.approval_mode,
            approved=gate.is_approved(call.scope),
            auto_approve=s.auto_approve,
            expires_in_s=gate.approval_expires_in(call.scope),
            protected=protected,
            cross_visibility=s.cross_visibility,
            repos_read=sorted(gate.reads.read_by(call.scope)[0]),
        ),
        workspace_sandbox=s.workspace_sandbox,
    )


class Check(BaseModel):
    name: str
    level: Literal["ok", "warning", "error"]
    detail: str


class EnvironmentReport(BaseModel):
    ok: int
    warnings: int
    errors: int
    checks: list[Check]


@tool(toolset=TOOLSET, repo_arg=None)
async def validate_environment(call: Call, probe_github: bool = True) -> EnvironmentReport:
    """Check credentials, controller repo, workspace and HTTP settings; optionally probe GitHub."""
    rt = call.rt
    found = await check_environment(
        rt.github, rt.settings, rt.gate.default_branch,
        credential_kind=rt.token_kind, probe_github=probe_github,
    )  # fmt: skip
    checks = [Check(name=c.name, level=c.level, detail=c.detail) for c in found]
    counts = {level: sum(c.level == level for c in checks) for level in ("ok", "warning", "error")}
    return EnvironmentReport(
        ok=counts["ok"], warnings=counts["warning"], errors=counts["error"], checks=checks
    )


class RateLimit(BaseModel):
    resource: str
    limit: int
    remaining: int
    used: int
    reset: int


class RateLimits(BaseModel):
    core: RateLimit
    others: list[RateLimit] = []


@tool(toolset=TOOLSET, repo_arg=None)
async def get_rate_limit(call: Call) -> RateLimits:
    """GitHub rate-limit status (this call does not count against it)."""
    data = await account.rate_limit(call.rt.github)
    resources = data.get("resources", {})

    def item(name: str, body: RateResource) -> RateLimit:
        return RateLimit(
            resource=name,
            limit=body.get("limit", 0),
            remaining=body.get("remaining", 0),
            used=body.get("used", 0),
            reset=body.get("reset", 0),
        )

    core = item("core", resources.get("core") or data.get("rate", {}))
    others = [
        item(k, v)
        for k, v in sorted(resources.items())
        if k in ("search", "graphql", "code_search")
    ]
    return RateLimits(core=core, others=others)


class Me(BaseModel):
    login: str
    id: int
    type: str | None = None
    name: str | None = None
    credential_kind: str


@tool(toolset=TOOLSET, repo_arg=None)
async def get_me(call: Call) -> Me:
    """The GitHub identity behind this server's credentials."""
    data = await account.identity(call.rt.github)
    return Me(credential_kind=call.rt.token_kind, **data)


class Invalidated(BaseModel):
    full_name: str
    entries_removed: int


@tool(toolset=TOOLSET)
async def invalidate_repo_cache(call: Call, full_name: FullName) -> Invalidated:
    """Drop every cached read for a repository (after an outside push, for example)."""
    return Invalidated(full_name=full_name, entries_removed=call.rt.invalidate_repo(full_name))
