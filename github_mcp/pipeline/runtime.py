"""The Runtime: one object holding the settings and the live services a tool needs."""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from github_mcp.approvals.requests import PendingApprovals
from github_mcp.config import Settings
from github_mcp.github.auth import AnonymousAuth, AppAuth, Credentials, TokenAuth, acting_user
from github_mcp.github.cache import Cache
from github_mcp.github.client import GitHubClient
from github_mcp.monitoring.audit import AuditLog
from github_mcp.monitoring.observability import Metrics, log_event
from github_mcp.pipeline.served import ServedTools
from github_mcp.policy.write_gate import WriteGate
from github_mcp.services.shared.repo_facts import default_branch

if TYPE_CHECKING:
    # imported at a workspace's first use: a server that lists tools or reads never pays
    from github_mcp.services.workspace import WorkspaceConfig, WorkspaceManager
    from github_mcp.state import ReplicaState

VERSION = "0.1.0"
SERVER_NAME = "github-mcp-controller"  # what the server calls itself to clients


def _app_key(settings: Settings) -> str | None:
    if settings.github_app_private_key:
        return settings.github_app_private_key.get_secret_value()
    if settings.github_app_private_key_path:
        return Path(settings.github_app_private_key_path).read_text()
    return None


class ServerGitCredentials:
    """Git credentials for workspace clones, from the server's GitHub credentials (PAT or
    App token, asked for at each git call so a refreshed App token is used)."""

    def __init__(self, github: GitHubClient, web_base_url: str) -> None:
        self._github = github
        self._web_base_url = web_base_url.rstrip("/")

    async def auth_header(self) -> str | None:
        from github_mcp.services.workspace import basic_auth_header

        token = await self._github.token()  # the signed-in user's, when a call acts for one
        return basic_auth_header(token) if token else None

    def clone_url(self, full_name: str) -> str:
        return f"{self._web_base_url}/{full_name}.git"


def workspace_config(settings: Settings) -> WorkspaceConfig:
    from github_mcp.services.workspace import WorkspaceConfig

    return WorkspaceConfig(
        root=settings.workspace_dir,
        git_user_name=settings.git_user_name,
        git_user_email=settings.git_user_email,
        stdout_max_chars=settings.tool_stdout_max_chars,
        stderr_max_chars=settings.tool_stderr_max_chars,
        cpu_seconds=settings.workspace_cpu_seconds,
        memory_mb=settings.workspace_memory_mb,
        max_processes=settings.workspace_max_processes,
        max_file_mb=settings.workspace_max_file_mb,
        sandbox=settings.workspace_sandbox,
        default_timeout_s=settings.workspace_default_timeout,
        max_timeout_s=settings.workspace_max_timeout,
        max_clones=settings.workspace_max_clones_per_user,
        max_bytes=settings.workspace_max_bytes_per_user,
    )


def _server_credentials(settings: Settings, github: GitHubClient) -> Credentials:
    """The server's own GitHub credentials: a GitHub App's, else a token, else none."""
    key = _app_key(settings)
    if settings.github_app_id and settings.github_app_installation_id and key:
        return AppAuth(
            settings.github_app_id, settings.github_app_installation_id, key, github.raw_post
        )
    if settings.github_token:
        return TokenAuth(settings.github_token.get_secret_value())
    return AnonymousAuth()


def _replica_state(settings: Settings) -> ReplicaState | None:
    """GITHUB_MCP_STATE_URL's shared state, or None for a server alone."""
    if settings.state_url is None or not settings.state_url.get_secret_value():
        return None
    # only replicas import the state package (redis-py alone is ~0.4 s of a start)
    from github_mcp.state import build_replica_state

    return build_replica_state(settings)


def _write_gate(
    settings: Settings, metrics: Metrics, github: GitHubClient, shared: ReplicaState | None
) -> WriteGate:
    async def default_branch_of(full_name: str) -> str:
        return await default_branch(github, full_name)

    return WriteGate(
        settings,
        metrics,
        default_branch_of,
        shared.approvals if shared else None,
        requests=shared.requests if shared else None,
    )


def _share_with_replicas(
    shared: ReplicaState, cache: Cache, github: GitHubClient, audit: AuditLog
) -> None:
    """Replicas: the cache, branch locks, rate-limit back-offs and audit stream are shared."""
    cache.shared = shared.cache
    github.ref_locks = shared.ref_locks
    github.rate_limits = shared.rate_limits
    github.write_fence = shared.writes.fence_current
    audit.stream = shared.audit.append
    log_event("shared_state", replica=shared.replica)


def _manager(config: WorkspaceConfig, credentials: ServerGitCredentials) -> WorkspaceManager:
    from github_mcp.services.workspace import WorkspaceManager

    return WorkspaceManager(config, credentials)


@dataclass
class Runtime:
    settings: Settings
    metrics: Metrics
    cache: Cache
    github: GitHubClient
    gate: WriteGate
    audit: AuditLog
    started_at: float = field(default_factory=time.time)
    health_probe: object | None = None  # the status page's readiness probe, built once
    # The proposed-write card's approval channel (apps/approval_tool.py, set by build_mcp:
    # the pipeline sits below apps, so it asks through this, never by import).
    approval_cards: Any = None
    # GITHUB_MCP_STATE_URL: the Redis-backed state shared with other replicas (None: alone)
    shared: ReplicaState | None = None
    # Built on first use: the manager creates its directories and probes cgroups, which a
    # server that never runs a workspace tool should not pay for (nor fail on).
    _workspaces: WorkspaceManager | None = field(default=None, repr=False)
    # Hosted sign-in: each GitHub user's clones, commands and outputs under a root of their own.
    _user_workspaces: dict[str, WorkspaceManager] = field(default_factory=dict, repr=False)

    @classmethod
    def create(cls, settings: Settings, *, retry_base_delay: float = 0.5) -> Runtime:
        metrics = Metrics()
        cache = Cache(settings.cache_max_entries, metrics)
        github = GitHubClient(
            settings, metrics, cache, AnonymousAuth(), retry_base_delay=retry_base_delay
        )
        github.credentials = _server_credentials(settings, github)
        log_event(
            "github_credentials", kind=github.credentials.kind, api_url=settings.github_api_url
        )
        shared = _replica_state(settings)
        gate = _write_gate(settings, metrics, github, shared)
        audit = AuditLog(settings.audit_log)
        if shared is not None:
            _share_with_replicas(shared, cache, github, audit)
        return cls(
            settings=settings,
            metrics=metrics,
            cache=cache,
            github=github,
            gate=gate,
            audit=audit,
            shared=shared,
        )

    def __post_init__(self) -> None:
        # The served tools, what every transport lists and the call seam calls (served.py);
        # a transport refreshes it once the operator's tools are registered.
        self.bound_specs = ServedTools(self.settings)
        # The approval page's open requests, told by the gate when a grant ends.
        self.pending = PendingApprovals(
            self.gate, clock=self.gate.clock, store=self.gate.requests_store
        )

    @property
    def workspaces(self) -> WorkspaceManager:
        """The workspace manager, built from the settings at first use; while a call acts
        for a signed-in user, that user's own (`<workspace dir>/users/<login>`)."""
        user = acting_user()
        if user is not None:
            return self._user_workspace(user.login.lower())
        if self._workspaces is None:
            credentials = ServerGitCredentials(self.github, self.settings.web_base_url)
            self._workspaces = _manager(workspace_config(self.settings), credentials)
            self._share_workspace_lock(self._workspaces)
        return self._workspaces

    def _user_workspace(self, login: str) -> WorkspaceManager:
        found = self._user_workspaces.get(login)
        if found is None:
            config = dataclasses.replace(
                workspace_config(self.settings),
                root=Path(self.settings.workspace_dir) / "users" / login,
            )
            credentials = ServerGitCredentials(self.github, self.settings.web_base_url)
            found = self._user_workspaces[login] = _manager(config, credentials)
            self._share_workspace_lock(found)
        return found

    def _share_workspace_lock(self, manager: WorkspaceManager) -> None:
        """Replicas: git and commands in a clone also hold its lock in Redis, so a shared
        workspace volume never has two replicas working in one clone."""
        if self.shared is not None:
            manager.shared_lock = self.shared.workspace_lock(Path(self.settings.workspace_dir))

    async def refresh_clone(self, full_name: str, branch: str) -> str:
        """After a write moved `branch`: fast-forward a clean workspace clone of it (a dirty
        or busy one is left as it is). Clones outlive the process, so the manager is built
        here when its root exists, even if no workspace tool has run yet."""
        user = acting_user()
        root, started = Path(self.settings.workspace_dir), self._workspaces
        if user is not None:
            login = user.login.lower()
            root, started = root / "users" / login, self._user_workspaces.get(login)
        if started is None and not root.is_dir():
            return "no_clone"
        return await self.workspaces.refresh_after_api_commit(full_name, branch)

    @property
    def token_kind(self) -> str:
        """The credential GitHub calls made now carry: a signed-in user's OAuth token
        (`oauth` from an OAuth App, `user_to_server` from a GitHub App), else the server's."""
        user = acting_user()
        if user is not None:
            return user.kind if user.kind != "unknown" else "oauth"
        return self.github.credentials.kind

    def invalidate_repo(self, full_name: str) -> int:
        return self.cache.invalidate_repo(full_name)

    async def aclose(self) -> None:
        await self.github.aclose()
        if self.shared is not None:
            await self.shared.aclose()
