"""Whether this server can work as configured: credentials, GitHub reachable, the controller
repository readable, the workspace root writable, and the settings that weaken safety."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.services.shared.account import rate_limit

if TYPE_CHECKING:
    from github_mcp.config import Settings


@dataclass(frozen=True)
class EnvCheck:
    name: str
    level: Literal["ok", "warning", "error"]
    detail: str


async def check_environment(
    github: GitHubClient,
    settings: Settings,
    default_branch: Callable[[str], Awaitable[str]],
    *,
    credential_kind: str,
    probe_github: bool = True,
) -> list[EnvCheck]:
    """Each check in a fixed order; `probe_github` adds the ones that call GitHub."""
    s = settings
    checks: list[EnvCheck] = []
    if s.has_github_credentials:
        checks.append(EnvCheck("github_credentials", "ok", credential_kind))
    else:
        checks.append(
            EnvCheck(
                "github_credentials", "warning", "no token: anonymous, read-only and low rate limit"
            )
        )
    if probe_github:
        checks.extend(await _probe_github(github, s, default_branch))
    try:
        s.workspace_dir.mkdir(parents=True, exist_ok=True)
        checks.append(EnvCheck("workspace_dir", "ok", str(s.workspace_dir)))
    except OSError as exc:
        checks.append(EnvCheck("workspace_dir", "error", type(exc).__name__))
    if s.auto_approve:
        checks.append(
            EnvCheck("auto_approve", "warning", "protected-branch writes are pre-approved")
        )
    if s.allow_unauthenticated:
        checks.append(EnvCheck("http_auth", "warning", "unauthenticated HTTP allowed off loopback"))
    return checks


async def _probe_github(
    github: GitHubClient, s: Settings, default_branch: Callable[[str], Awaitable[str]]
) -> list[EnvCheck]:
    checks: list[EnvCheck] = []
    try:
        await rate_limit(github)
        checks.append(EnvCheck("github_api", "ok", s.github_api_url))
    except GitHubMCPError as exc:
        checks.append(EnvCheck("github_api", "error", exc.message))
    if s.controller_repo:
        try:
            branch = await default_branch(s.controller_repo)
            checks.append(
                EnvCheck("controller_repo", "ok", f"{s.controller_repo} (default {branch})")
            )
        except GitHubMCPError as exc:
            checks.append(EnvCheck("controller_repo", "error", exc.message))
    return checks
