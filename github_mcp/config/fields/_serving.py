"""Settings fields: serving over HTTP (address, callers' tokens, sessions) and hosted sign-in
with GitHub (OAuth, allowed users, the state replicas share).
Mixed into `Settings` in github_mcp/config/__init__.py."""

from __future__ import annotations

import ipaddress
from pathlib import Path
from typing import Literal

from pydantic import Field, SecretStr, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from github_mcp.config.fields._access import env
from github_mcp.config.fields._state_home import InStateHome


class HttpTransportSettings(BaseSettings):
    """Serving MCP over HTTP: address, callers' tokens, sessions."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    auth_tokens: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_AUTH_TOKENS"),
        description="Comma-separated bearer tokens accepted on /mcp, /sse and /status.",
    )
    allow_unauthenticated: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_ALLOW_UNAUTHENTICATED"),
        description="Allow serving HTTP off loopback without bearer auth (not recommended).",
    )
    allowed_origins: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_ALLOWED_ORIGINS"),
        description="Comma-separated extra Origins accepted (loopback origins always are).",
    )
    allowed_hosts: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_ALLOWED_HOSTS"),
        description="Comma-separated extra Host names accepted (loopback and the bind "
        "address always are; `*` disables the check).",
    )
    trusted_proxies: str = Field(
        "",
        pattern=r"^[0-9A-Fa-f.:/, ]*$",
        validation_alias=env("GITHUB_MCP_TRUSTED_PROXIES"),
        description="Comma-separated addresses or CIDR ranges of the proxies in front of "
        "the server (e.g. `10.0.0.0/8`). A request from one of them is taken to have the "
        "scheme, host and port its X-Forwarded-Proto, -Host and -Port headers name, so "
        "approval links and cookies match the address clients use. Empty: none trusted.",
    )
    max_body_bytes: int = Field(
        4 * 1024 * 1024,
        ge=1024,
        validation_alias=env("GITHUB_MCP_MAX_BODY_BYTES"),
        description="Largest HTTP request body accepted.",
    )
    session_idle_timeout_seconds: float = Field(
        600.0,
        gt=0,
        le=86400,
        validation_alias=env("GITHUB_MCP_SESSION_IDLE_TIMEOUT_SECONDS"),
        description="Streamable HTTP: a session with no request in flight and no open "
        "stream for this long is closed and its memory freed (its approval ends with it); "
        "its client then gets 404 and starts a new session.",
    )
    session_hibernate_after_seconds: float = Field(
        30.0,
        ge=0,
        le=86400,
        validation_alias=env("GITHUB_MCP_SESSION_HIBERNATE_AFTER_SECONDS"),
        description="Streamable HTTP: a session with nothing in flight for this long (no "
        "request, no open stream, no running call, no question awaiting the client) is put "
        "to sleep: its live objects are freed and a small record kept until the "
        "idle timeout (about 17 KB of the process's memory against 42 KB awake, 7 KB of "
        "objects against 35 KB: bench/hibernation_memory.py); its next request wakes it, "
        "with its protocol version, client, log level, enabled toolsets and approval intact. "
        "0 turns it off.",
    )
    max_sessions: int = Field(
        1000,
        ge=1,
        validation_alias=env("GITHUB_MCP_MAX_SESSIONS"),
        description="Streamable HTTP: most sessions open at once, asleep ones included (an "
        "awake idle one costs about 42 KB of memory, an asleep one about 17 KB). Past it a "
        "new session "
        "is refused with HTTP 503 and a JSON-RPC error; open "
        "sessions keep working, and room frees up as they end or time out.",
    )
    session_id_header: str = Field(
        "",
        pattern=r"^([A-Za-z0-9-]+)?$",
        validation_alias=env("GITHUB_MCP_SESSION_ID_HEADER"),
        description="Behind a proxy only: a request header whose value (32 hex digits, "
        "like nginx's $request_id) becomes the id of the session the request opens, so "
        "a proxy hashing on that id routes the session back to this replica "
        "(deploy/nginx.conf sets X-Request-Id). Empty: the server mints its own ids.",
    )
    listen_when_ready: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_LISTEN_WHEN_READY"),
        description="HTTP: open the port only once the app is built (about 2 s of a "
        "start), so a proxy without readiness probes (deploy/nginx.conf) finds a "
        "restarting replica refusing connections and sends its requests to another one "
        "instead of making them wait. Off: the port opens at once, /healthz answers and "
        "/readyz says 503 starting, and other requests wait for the app.",
    )
    log_level: str = Field(
        "INFO",
        validation_alias=env("GITHUB_MCP_LOG_LEVEL"),
        description="Log level for the JSON logs on stderr.",
    )
    shutdown_grace_seconds: float = Field(
        20.0,
        ge=0,
        le=3600,
        validation_alias=env("GITHUB_MCP_SHUTDOWN_GRACE_SECONDS"),
        description="On SIGTERM, how long in-flight tool calls may take to finish before "
        "they are cancelled; running workspace commands are ended a little before that.",
    )

    @field_validator("trusted_proxies")
    @classmethod
    def _networks(cls, value: str) -> str:
        for part in filter(None, (p.strip() for p in value.split(","))):
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"{part!r} is not an address or a CIDR range") from None
        return value


class HostedSignInSettings(BaseSettings):
    """Hosted sign-in: users sign in with GitHub; state shared by replicas."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    auth_mode: Literal["bearer", "oauth", "none"] = Field(
        "bearer",
        validation_alias=env("GITHUB_MCP_AUTH"),
        description="How HTTP clients authenticate: `bearer` (the static "
        "GITHUB_MCP_AUTH_TOKENS), `oauth` (MCP authorization: each user signs in with "
        "GitHub and the tools act with that user's GitHub token) or `none` (loopback only).",
    )
    public_url: str | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_PUBLIC_URL"),
        description="Externally visible base URL (e.g. `https://mcp.example.com`): the OAuth "
        "resource identifier is `<url>/mcp` and GitHub's callback `<url>/auth/callback`. "
        "Defaults to the bound address on loopback; required off loopback with `oauth`.",
    )
    oauth_client_id: str | None = Field(
        None,
        validation_alias=env("GITHUB_OAUTH_CLIENT_ID"),
        description="Client ID of the GitHub OAuth App (or GitHub App) users sign in through. "
        "With the embedded sandbox forge the server registers its own app when unset.",
    )
    oauth_client_secret: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_OAUTH_CLIENT_SECRET"),
        description="Client secret of that app.",
    )
    oauth_scopes: str = Field(
        "repo read:org",
        validation_alias=env("GITHUB_OAUTH_SCOPES"),
        description="Space-separated scopes asked of a GitHub OAuth App: `repo` (read and "
        "write private repositories), `read:org` (org membership, for "
        "GITHUB_MCP_ALLOWED_ORGS); add `workflow` to let users change workflow files. "
        "GitHub Apps ignore scopes (their permissions are set on the app).",
    )
    oauth_access_token_ttl_seconds: int = Field(
        3600,
        ge=60,
        le=86400,
        validation_alias=env("GITHUB_MCP_OAUTH_ACCESS_TOKEN_TTL_SECONDS"),
        description="Lifetime of the access tokens this server issues to MCP clients after "
        "sign-in (1 hour by default). Clients renew them with their refresh token, which "
        "rotates on every use; replaying a used one ends the whole sign-in.",
    )
    allowed_users: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_ALLOWED_USERS"),
        description="Comma-separated GitHub logins that may sign in. With "
        "GITHUB_MCP_ALLOWED_ORGS, a user on either list may; both empty lets any "
        "GitHub user sign in.",
    )
    allowed_orgs: str = Field(
        "",
        validation_alias=env("GITHUB_MCP_ALLOWED_ORGS"),
        description="Comma-separated GitHub organizations whose members may sign in.",
    )
    oauth_signing_key: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_OAUTH_SIGNING_KEY"),
        description="Secret that signs the server's OAuth tokens and encrypts the stored "
        "GitHub tokens. When unset, one is generated and kept in "
        "`<GITHUB_MCP_STATE_DIR>/oauth-signing-key` (mode 0600). Set it when several "
        "instances serve one URL.",
    )
    state_dir: Path = Field(
        default_factory=InStateHome("state"),
        validation_alias=env("GITHUB_MCP_STATE_DIR"),
        description="Where the server keeps state across restarts: the OAuth signing key "
        "and the encrypted store of client registrations and users' GitHub tokens.",
    )
    state_url: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_STATE_URL"),
        description="Empty: all state in this process (one replica). `redis://…` or "
        "`rediss://…`: state shared by replicas in Redis (OAuth clients and tokens, "
        "approvals, the second-level response cache with per-repository generations, "
        "resumable event streams, write locks, idempotency records, "
        "the audit stream). While Redis is unreachable, writes are refused (`unavailable`) "
        "and /readyz fails.",
    )
    tasks_url: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_MCP_TASKS_URL"),
        description="Where MCP tasks (long calls a client asked to run in the background) are "
        "queued and kept: empty means GITHUB_MCP_STATE_URL when that is set, else "
        "`memory://` (this process runs them). With Redis, every replica and every "
        "`python -m github_mcp tasks-worker` process serves one queue: any replica answers "
        "`tasks/get`, and a task whose worker dies is run again by another.",
    )
    tasks_lease_seconds: float = Field(
        30.0,
        ge=5.0,
        le=3600.0,
        validation_alias=env("GITHUB_MCP_TASKS_LEASE_SECONDS"),
        description="With a Redis task queue: the lease a worker renews (four times per "
        "lease) while it runs a task. When a worker dies, another takes its task over once "
        "the lease lapses: a read runs again, a write fails saying its outcome is unknown.",
    )
    tasks_concurrency: int = Field(
        10,
        ge=1,
        le=1000,
        validation_alias=env("GITHUB_MCP_TASKS_CONCURRENCY"),
        description="How many MCP tasks each worker (every replica, and each `tasks-worker` "
        "process; over stdio, the server) runs at once; more wait in the queue for a free "
        "worker. A task runs in "
        "its worker's own workspace clone, made fresh at the branch head where that worker "
        "has none.",
    )
    tasks_enabled: bool = Field(
        True,
        validation_alias=env("GITHUB_MCP_TASKS"),
        description="Offer the MCP Tasks extension (over HTTP and stdio): a 2026-07-28 "
        "client that declares it gets a task at once for a long call (tests, commands, "
        "clones, waits), and polls it with `tasks/get`. false: every call answers in its "
        "request.",
    )
    idempotency_ttl_seconds: int = Field(
        600,
        ge=0,
        le=86400,
        validation_alias=env("GITHUB_MCP_IDEMPOTENCY_TTL_SECONDS"),
        description="With GITHUB_MCP_STATE_URL: how long a write's result is kept under its "
        "idempotency key (the client's `idempotency_key` in the call's `_meta`, else the "
        "principal, tool and canonical arguments), so a retry to any replica returns the "
        "first result instead of writing again. 0 turns this off.",
    )
    write_lock_lease_seconds: float = Field(
        15.0,
        ge=1.0,
        le=300.0,
        validation_alias=env("GITHUB_MCP_WRITE_LOCK_LEASE_SECONDS"),
        description="With GITHUB_MCP_STATE_URL: the lease of a per-branch write lock, renewed "
        "while its holder lives; a dead replica's lock expires after it.",
    )
    stream_retry_ms: int = Field(
        1000,
        ge=100,
        le=60000,
        validation_alias=env("GITHUB_MCP_STREAM_RETRY_MS"),
        description="The SSE `retry` (milliseconds) sent in the first event of each response "
        "stream: how soon a client reconnects with Last-Event-ID after a stream breaks.",
    )
    stream_events_max_bytes: int = Field(
        8 * 1024 * 1024,
        ge=64 * 1024,
        validation_alias=env("GITHUB_MCP_STREAM_EVENTS_MAX_BYTES"),
        description="Without GITHUB_MCP_STATE_URL: most memory the events kept for stream "
        "resumption (Last-Event-ID) may hold; past it the least recently written streams "
        "are dropped. A call's events are dropped 10 s after its answer anyway.",
    )
    stream_events_max_age_seconds: float = Field(
        300.0,
        gt=0,
        le=86400,
        validation_alias=env("GITHUB_MCP_STREAM_EVENTS_MAX_AGE_SECONDS"),
        description="Without GITHUB_MCP_STATE_URL: a stream with no new event for this long "
        "can no longer be resumed, and its events are dropped.",
    )
    watch_interval_seconds: float = Field(
        10.0,
        ge=0.5,
        le=300.0,
        validation_alias=env("GITHUB_MCP_WATCH_INTERVAL_SECONDS"),
        description="How often a `subscriptions/listen` stream's watched workflow runs are "
        "polled (one conditional GET each: an unchanged run costs a 304, which GitHub's "
        "rate limit does not count). Polling happens only while such a stream is open.",
    )
    watch_max_uris: int = Field(
        20,
        ge=1,
        le=500,
        validation_alias=env("GITHUB_MCP_WATCH_MAX_URIS"),
        description="Most resource URIs one `subscriptions/listen` stream may watch; a listen "
        "asking for more is refused with the limit in its error.",
    )
