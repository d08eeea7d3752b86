"""Settings: every environment variable the server reads, typed and documented.

`docs/CONFIG.md` is generated from this class (`python main.py docs`); a test
fails when it is stale.
"""

from __future__ import annotations

import json
from enum import StrEnum
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Toolset(StrEnum):
    """The groups tools are registered in; GITHUB_MCP_TOOLSETS picks among them."""

    META = "meta"
    REPOS = "repos"
    FILES = "files"
    WRITES = "writes"
    ISSUES = "issues"
    PULL_REQUESTS = "pull_requests"
    ACTIONS = "actions"
    AUTOMATION = "automation"
    WORKSPACE = "workspace"
    SEARCH = "search"

    @classmethod
    def parse(cls, name: str) -> Toolset:
        """The toolset called `name`; ValueError naming the valid ones otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown toolset {name!r}; valid: {', '.join(TOOLSETS)}") from None


TOOLSETS: tuple[str, ...] = tuple(t.value for t in Toolset)


def _split_csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


def _env(name: str, *more: str) -> AliasChoices:
    return AliasChoices(name, *more)


class Settings(BaseSettings):
    """Server configuration, read from the environment (and an optional `.env`)."""

    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, frozen=True
    )

    # --- GitHub access -------------------------------------------------------
    github_token: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_TOKEN", "GITHUB_PAT"),
        description="Personal access token (classic, fine-grained or OAuth). "
        "`GITHUB_PAT` is accepted as an alias.",
    )
    github_app_id: str | None = Field(
        None, validation_alias=_env("GITHUB_APP_ID"), description="GitHub App ID."
    )
    github_app_installation_id: str | None = Field(
        None,
        validation_alias=_env("GITHUB_APP_INSTALLATION_ID"),
        description="Installation ID of the GitHub App on the target account.",
    )
    github_app_private_key_path: Path | None = Field(
        None,
        validation_alias=_env("GITHUB_APP_PRIVATE_KEY_PATH"),
        description="Path to the App's PEM private key.",
    )
    github_app_private_key: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_APP_PRIVATE_KEY"),
        description="The App's PEM private key inline (takes precedence over the path).",
    )
    github_api_url: str = Field(
        "https://api.github.com",
        validation_alias=_env("GITHUB_API_URL"),
        description="REST base URL. GitHub Enterprise Server: `https://HOST/api/v3`.",
    )
    github_graphql_url: str | None = Field(
        None,
        validation_alias=_env("GITHUB_GRAPHQL_URL"),
        description="GraphQL endpoint; derived from the API URL when unset.",
    )
    github_api_version: str = Field(
        "2022-11-28",
        validation_alias=_env("GITHUB_API_VERSION"),
        description="Value of the `X-GitHub-Api-Version` header.",
    )
    github_max_concurrency: int = Field(
        10,
        ge=1,
        le=100,
        validation_alias=_env("GITHUB_MAX_CONCURRENCY"),
        description="Most GitHub requests in flight at once, across the process.",
    )
    github_max_retry_wait: float = Field(
        30.0,
        ge=0,
        validation_alias=_env("GITHUB_MAX_RETRY_WAIT"),
        description="Longest `Retry-After` (seconds) the client waits before retrying; "
        "a longer one returns `rate_limited`.",
    )
    github_request_timeout: float = Field(
        30.0,
        gt=0,
        validation_alias=_env("GITHUB_REQUEST_TIMEOUT"),
        description="Per-request timeout in seconds.",
    )
    github_repo_defaults: str = Field(
        "",
        validation_alias=_env("GITHUB_REPO_DEFAULTS"),
        description='JSON object overriding default branches, e.g. `{"o/r": "develop"}`.',
    )

    # --- Tool surface --------------------------------------------------------
    toolsets: str = Field(
        "all",
        validation_alias=_env("GITHUB_MCP_TOOLSETS"),
        description="Comma-separated toolsets to register, or `all`. Known: "
        + ", ".join(TOOLSETS)
        + ".",
    )
    tools: Literal["all", "core"] = Field(
        "all",
        validation_alias=_env("GITHUB_MCP_TOOLS"),
        description="`core`: a session whose client follows tool list changes (it declares "
        "`experimental.tools.listChanged`) first lists a core set plus `find_tools` and "
        "`enable_toolset`; enabling a toolset lists it for that session and sends "
        "`notifications/tools/list_changed`. Other clients, and `all`, get every tool.",
    )
    read_only: bool = Field(
        False,
        validation_alias=_env("GITHUB_MCP_READ_ONLY"),
        description="When true, write tools are not registered at all.",
    )
    lockdown: bool = Field(
        False,
        validation_alias=_env("GITHUB_MCP_LOCKDOWN"),
        description="When true, issue, pull request, review and comment text written by "
        "authors without push access (association other than OWNER, MEMBER or "
        "COLLABORATOR) is withheld behind a note naming the author.",
    )

    # --- Write policy --------------------------------------------------------
    repo_allowlist: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_REPO_ALLOWLIST"),
        description="Comma-separated `owner/repo` or `owner/*` entries; empty allows all. "
        "Applies to reads and writes.",
    )
    controller_repo: str | None = Field(
        None,
        validation_alias=_env("GITHUB_MCP_CONTROLLER_REPO"),
        description="The controller's own repository (`owner/repo`).",
    )
    controller_branch: str = Field(
        "main",
        validation_alias=_env("GITHUB_MCP_CONTROLLER_BRANCH"),
        description="Branch that a missing ref or `main` maps to in the controller repo.",
    )
    protected_branches: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_PROTECTED_BRANCHES"),
        description="Comma-separated branch globs that need approval to write "
        "(the default branch and the controller branch always do).",
    )
    auto_approve: bool = Field(
        False,
        validation_alias=_env("GITHUB_MCP_AUTO_APPROVE"),
        description="Initial approval state for gated writes.",
    )
    approval_mode: Literal["auto", "tool", "elicit", "env"] = Field(
        "auto",
        validation_alias=_env("GITHUB_MCP_APPROVAL_MODE"),
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
        validation_alias=_env("GITHUB_MCP_APPROVAL_WINDOW_MINUTES"),
        description="The N of the approval page's and form's 'approve for N minutes' "
        "choice: gated writes of that principal's session pass for this long.",
    )
    approval_link_ttl_seconds: int = Field(
        600,
        ge=30,
        le=86400,
        validation_alias=_env("GITHUB_MCP_APPROVAL_LINK_TTL_SECONDS"),
        description="How long an approval page link stays valid (`auto` mode). Each link "
        "is single-use and bound to the principal whose write it approves.",
    )
    approval_ttl_seconds: int = Field(
        0,
        ge=0,
        validation_alias=_env("GITHUB_MCP_APPROVAL_TTL_SECONDS"),
        description="Approval expiry in seconds; 0 means it lasts for the session (for a "
        "client without a session, until it is revoked or the server restarts).",
    )
    approval_prompt_timeout_seconds: float = Field(
        120.0,
        gt=0,
        le=3600,
        validation_alias=_env("GITHUB_MCP_APPROVAL_PROMPT_TIMEOUT_SECONDS"),
        description="How long a call waits for the human to answer an elicitation prompt "
        "(`elicit` and `auto` modes) or to decide on the approval page it opened (`auto`) "
        "before it gives up with `timeout`, granting nothing (a page link stays usable).",
    )
    audit_log: Path = Field(
        Path("var/audit.jsonl"),
        validation_alias=_env("GITHUB_MCP_AUDIT_LOG"),
        description="JSON-lines audit log of executed writes (fsync'd).",
    )

    # --- Workspace -----------------------------------------------------------
    workspace_dir: Path = Field(
        Path("var/workspaces"),
        validation_alias=_env("GITHUB_MCP_WORKSPACE_DIR"),
        description="Where persistent clones live.",
    )
    workspace_sandbox: Literal["none", "bwrap"] = Field(
        "bwrap",
        validation_alias=_env("GITHUB_MCP_WORKSPACE_SANDBOX"),
        description="`bwrap` (default) runs each workspace command under bubblewrap: new "
        "user, pid, ipc and network namespaces, an unprivileged uid, read-only system "
        "directories, only its own clone visible and writable, network only with "
        "`installing_dependencies`. When bubblewrap cannot start, the workspace tools refuse "
        "with `workspace_unavailable`. `none` runs commands with the server's own access: "
        "unsafe for anything but a single trusted user (see docs/DEPLOY.md).",
    )
    workspace_cpu_seconds: int = Field(
        600,
        ge=1,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_CPU_SECONDS"),
        description="CPU-time limit for a workspace command.",
    )
    workspace_memory_mb: int = Field(
        4096,
        ge=64,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MEMORY_MB"),
        description="Memory limit (MB) for a workspace command.",
    )
    workspace_max_processes: int = Field(
        256,
        ge=8,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MAX_PROCESSES"),
        description="Process-count limit for a workspace command.",
    )
    workspace_max_file_mb: int = Field(
        1024,
        ge=1,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MAX_FILE_MB"),
        description="Largest file (MB) a workspace command may write.",
    )
    workspace_default_timeout: int = Field(
        300,
        ge=1,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_TIMEOUT"),
        description="Default command timeout in seconds.",
    )
    workspace_max_timeout: int = Field(
        3600,
        ge=1,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MAX_TIMEOUT"),
        description="Largest timeout a caller may ask for.",
    )
    workspace_max_clones_per_user: int = Field(
        20,
        ge=0,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MAX_CLONES_PER_USER"),
        description="Most workspace clones one user may hold (each signed-in user's under "
        "`<workspace dir>/users/<login>`; with `bearer` or `none` auth, the one shared "
        "workspace root). A clone past it is refused with `quota_exceeded`, listing the "
        "user's clones; `remove_workspace_clone` frees a slot. 0: no limit.",
    )
    workspace_max_bytes_per_user: int = Field(
        10 * 1024**3,
        ge=0,
        validation_alias=_env("GITHUB_MCP_WORKSPACE_MAX_BYTES_PER_USER"),
        description="Disk bytes one user's workspace root may use (clones, venvs, HOME "
        "caches, build outputs). Checked before each new clone and each command: at or "
        "over it they are refused with `quota_exceeded` (a running command may overshoot; "
        "commits and pushes still work). `ensure_workspace_clone` with reset=true or "
        "`remove_workspace_clone` frees space. 0: no limit.",
    )
    tool_stdout_max_chars: int = Field(
        12000,
        ge=100,
        validation_alias=_env("TOOL_STDOUT_MAX_CHARS"),
        description="stdout cap for workspace commands (head and tail kept).",
    )
    tool_stderr_max_chars: int = Field(
        6000,
        ge=100,
        validation_alias=_env("TOOL_STDERR_MAX_CHARS"),
        description="stderr cap for workspace commands (head and tail kept).",
    )
    git_user_name: str = Field(
        "GitHub MCP Controller",
        validation_alias=_env("GITHUB_MCP_GIT_USER_NAME"),
        description="Author name for workspace commits.",
    )
    git_user_email: str = Field(
        "github-mcp@users.noreply.github.com",
        validation_alias=_env("GITHUB_MCP_GIT_USER_EMAIL"),
        description="Author e-mail for workspace commits.",
    )

    # --- Cache ---------------------------------------------------------------
    cache_max_entries: int = Field(
        5000,
        ge=0,
        validation_alias=_env("GITHUB_MCP_CACHE_MAX_ENTRIES"),
        description="LRU capacity of the in-process cache (0 disables it).",
    )
    cache_ttl_seconds: float = Field(
        60.0,
        ge=0,
        validation_alias=_env("GITHUB_MCP_CACHE_TTL_SECONDS"),
        description="TTL for cached mutable reads (branch heads, PRs); content addressed "
        "by SHA never expires. After the TTL, reads revalidate with ETags.",
    )

    # --- HTTP transport ------------------------------------------------------
    auth_tokens: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_MCP_AUTH_TOKENS"),
        description="Comma-separated bearer tokens accepted on /mcp, /sse and /status.",
    )
    allow_unauthenticated: bool = Field(
        False,
        validation_alias=_env("GITHUB_MCP_ALLOW_UNAUTHENTICATED"),
        description="Allow serving HTTP off loopback without bearer auth (not recommended).",
    )
    allowed_origins: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_ALLOWED_ORIGINS"),
        description="Comma-separated extra Origins accepted (loopback origins always are).",
    )
    allowed_hosts: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_ALLOWED_HOSTS"),
        description="Comma-separated extra Host names accepted (loopback and the bind "
        "address always are; `*` disables the check).",
    )
    max_body_bytes: int = Field(
        4 * 1024 * 1024,
        ge=1024,
        validation_alias=_env("GITHUB_MCP_MAX_BODY_BYTES"),
        description="Largest HTTP request body accepted.",
    )
    session_idle_timeout_seconds: float = Field(
        600.0,
        gt=0,
        le=86400,
        validation_alias=_env("GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS"),
        description="Streamable HTTP: a session with no request in flight and no open "
        "stream for this long is closed and its memory freed (its approval ends with it); "
        "its client then gets 404 and starts a new session.",
    )
    max_sessions: int = Field(
        1000,
        ge=1,
        validation_alias=_env("GITHUB_MCP_MAX_SESSIONS"),
        description="Streamable HTTP: most sessions open at once (each idle one holds about "
        "50 KB). Past it a new session is refused with HTTP 503 and a JSON-RPC error; open "
        "sessions keep working, and room frees up as they end or time out.",
    )
    log_level: str = Field(
        "INFO",
        validation_alias=_env("GITHUB_MCP_LOG_LEVEL"),
        description="Log level for the JSON logs on stderr.",
    )
    shutdown_grace_seconds: float = Field(
        20.0,
        ge=0,
        le=3600,
        validation_alias=_env("GITHUB_MCP_SHUTDOWN_GRACE_SECONDS"),
        description="On SIGTERM, how long in-flight tool calls may take to finish before "
        "they are cancelled; running workspace commands are ended a little before that.",
    )

    # --- Hosted sign-in (OAuth) ----------------------------------------------
    auth_mode: Literal["bearer", "oauth", "none"] = Field(
        "bearer",
        validation_alias=_env("GITHUB_MCP_AUTH"),
        description="How HTTP clients authenticate: `bearer` (the static "
        "GITHUB_MCP_AUTH_TOKENS), `oauth` (MCP authorization: each user signs in with "
        "GitHub and the tools act with that user's GitHub token) or `none` (loopback only).",
    )
    public_url: str | None = Field(
        None,
        validation_alias=_env("GITHUB_MCP_PUBLIC_URL"),
        description="Externally visible base URL (e.g. `https://mcp.example.com`): the OAuth "
        "resource identifier is `<url>/mcp` and GitHub's callback `<url>/auth/callback`. "
        "Defaults to the bound address on loopback; required off loopback with `oauth`.",
    )
    oauth_client_id: str | None = Field(
        None,
        validation_alias=_env("GITHUB_OAUTH_CLIENT_ID"),
        description="Client ID of the GitHub OAuth App (or GitHub App) users sign in through. "
        "With the embedded sandbox forge the server registers its own app when unset.",
    )
    oauth_client_secret: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_OAUTH_CLIENT_SECRET"),
        description="Client secret of that app.",
    )
    oauth_scopes: str = Field(
        "repo read:org",
        validation_alias=_env("GITHUB_OAUTH_SCOPES"),
        description="Space-separated scopes asked of a GitHub OAuth App: `repo` (read and "
        "write private repositories), `read:org` (org membership, for "
        "GITHUB_MCP_ALLOWED_ORGS); add `workflow` to let users change workflow files. "
        "GitHub Apps ignore scopes (their permissions are set on the app).",
    )
    allowed_users: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_ALLOWED_USERS"),
        description="Comma-separated GitHub logins that may sign in. With "
        "GITHUB_MCP_ALLOWED_ORGS, a user on either list may; both empty lets any "
        "GitHub user sign in.",
    )
    allowed_orgs: str = Field(
        "",
        validation_alias=_env("GITHUB_MCP_ALLOWED_ORGS"),
        description="Comma-separated GitHub organizations whose members may sign in.",
    )
    oauth_signing_key: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_MCP_OAUTH_SIGNING_KEY"),
        description="Secret that signs the server's OAuth tokens and encrypts the stored "
        "GitHub tokens. When unset, one is generated and kept in "
        "`<GITHUB_MCP_STATE_DIR>/oauth-signing-key` (mode 0600). Set it when several "
        "instances serve one URL.",
    )
    state_dir: Path = Field(
        Path("var/state"),
        validation_alias=_env("GITHUB_MCP_STATE_DIR"),
        description="Where the server keeps state across restarts: the OAuth signing key "
        "and the encrypted store of client registrations and users' GitHub tokens.",
    )
    state_url: SecretStr | None = Field(
        None,
        validation_alias=_env("GITHUB_MCP_STATE_URL"),
        description="Empty: all state in this process (one replica). `redis://…` or "
        "`rediss://…`: state shared by replicas in Redis (OAuth clients and tokens, "
        "approvals, the second-level response cache with per-repository generations, "
        "resumable event streams, write locks, idempotency records, "
        "the audit stream). While Redis is unreachable, writes are refused (`unavailable`) "
        "and /readyz fails.",
    )
    idempotency_ttl_seconds: int = Field(
        600,
        ge=0,
        le=86400,
        validation_alias=_env("GITHUB_MCP_IDEMPOTENCY_TTL_SECONDS"),
        description="With GITHUB_MCP_STATE_URL: how long a write's result is kept under its "
        "idempotency key (the client's `idempotency_key` in the call's `_meta`, else the "
        "principal, tool and canonical arguments), so a retry to any replica returns the "
        "first result instead of writing again. 0 turns this off.",
    )
    write_lock_lease_seconds: float = Field(
        15.0,
        ge=1.0,
        le=300.0,
        validation_alias=_env("GITHUB_MCP_WRITE_LOCK_LEASE_SECONDS"),
        description="With GITHUB_MCP_STATE_URL: the lease of a per-branch write lock, renewed "
        "while its holder lives; a dead replica's lock expires after it.",
    )
    stream_retry_ms: int = Field(
        1000,
        ge=100,
        le=60000,
        validation_alias=_env("GITHUB_MCP_STREAM_RETRY_MS"),
        description="The SSE `retry` (milliseconds) sent in each stream's priming event: how "
        "soon a client reconnects with Last-Event-ID after a stream breaks.",
    )

    def with_overrides(self, **values: object) -> Settings:
        """A fresh Settings with some fields replaced (derived values recomputed)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(values)
        return type(self)(**data)

    @field_validator("github_api_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("toolsets")
    @classmethod
    def _known_toolsets(cls, value: str) -> str:
        unknown = [n for n in _split_csv(value.lower()) if n != "all" and n not in TOOLSETS]
        if unknown:

            raise ValueError(
                f"unknown toolset(s) {', '.join(unknown)}; valid: all, {', '.join(TOOLSETS)}"
            )
        return value

    # --- Derived values ------------------------------------------------------
    @cached_property
    def graphql_url(self) -> str:
        if self.github_graphql_url:
            return self.github_graphql_url
        base = self.github_api_url
        if base.endswith("/api/v3"):
            return base[: -len("/v3")] + "/graphql"
        return base + "/graphql"

    @cached_property
    def web_base_url(self) -> str:
        """Where clone URLs and html links live, derived from the API host."""
        base = self.github_api_url
        if base == "https://api.github.com":
            return "https://github.com"
        if base.endswith("/api/v3"):
            return base[: -len("/api/v3")]
        return base

    @cached_property
    def toolset_list(self) -> tuple[str, ...]:
        wanted = _split_csv(self.toolsets.lower())
        if not wanted or "all" in wanted:
            return TOOLSETS
        return tuple(t for t in TOOLSETS if t in wanted)

    @cached_property
    def allowlist(self) -> tuple[str, ...]:
        return tuple(entry.lower() for entry in _split_csv(self.repo_allowlist))

    @cached_property
    def protected_globs(self) -> tuple[str, ...]:
        return tuple(_split_csv(self.protected_branches))

    @cached_property
    def repo_default_overrides(self) -> dict[str, str]:
        if not self.github_repo_defaults.strip():
            return {}
        try:
            data = json.loads(self.github_repo_defaults)
        except json.JSONDecodeError as exc:
            raise ValueError("GITHUB_REPO_DEFAULTS must be a JSON object") from exc
        if not isinstance(data, dict):
            raise ValueError("GITHUB_REPO_DEFAULTS must be a JSON object")
        return {str(k).lower(): str(v) for k, v in data.items()}

    @cached_property
    def bearer_tokens(self) -> tuple[str, ...]:
        if self.auth_tokens is None:
            return ()
        return tuple(_split_csv(self.auth_tokens.get_secret_value()))

    @property
    def has_github_credentials(self) -> bool:
        app = (
            self.github_app_id
            and self.github_app_installation_id
            and (self.github_app_private_key or self.github_app_private_key_path)
        )
        return bool(self.github_token or app)

    @cached_property
    def allowed_user_set(self) -> frozenset[str]:
        return frozenset(u.lower() for u in _split_csv(self.allowed_users))

    @cached_property
    def allowed_org_set(self) -> frozenset[str]:
        return frozenset(o.lower() for o in _split_csv(self.allowed_orgs))

