"""Configuration, credentials protocol and workspaces of the workspace service (what it
answers is in _results.py)."""

from __future__ import annotations

import asyncio
import base64
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._sandbox import DEFAULT_ENV_ALLOWLIST

# on_progress(elapsed_seconds, message); may be a coroutine function.
Progress = Callable[[float, str], "Awaitable[None] | None"]
RefKind = Literal["branch", "tag", "commit"]

MAX_LISTED = 300


@dataclass
class WorkspaceConfig:
    root: Path
    git_user_name: str = "GitHub MCP"
    git_user_email: str = "github-mcp@users.noreply.github.com"
    stdout_max_chars: int = 12000
    stderr_max_chars: int = 6000
    cpu_seconds: int = 1800
    memory_mb: int = 4096
    # RLIMIT_AS per process. None: memory_mb without a memory cgroup (the only memory
    # guard then), 4 × memory_mb with one (runtimes reserve far more than they touch).
    address_space_mb: int | None = None
    max_processes: int = 512
    max_file_mb: int = 1024
    # "bwrap": every command in its own bubblewrap jail (see `_sandbox`). "none": commands
    # run with the server's own access, for a single trusted user only.
    sandbox: Literal["none", "bwrap"] = "bwrap"
    env_allowlist: tuple[str, ...] = DEFAULT_ENV_ALLOWLIST
    default_timeout_s: float = 300.0
    max_timeout_s: float = 1800.0
    git_timeout_s: float = 600.0
    kill_grace_s: float = 2.0
    progress_interval_s: float = 2.0
    use_cgroups: bool = True
    # Sandboxed: a root server always drops to `nobody` (or the named user).
    # Unsandboxed: "auto" drops to `nobody` only when root has no cgroup; None: never.
    run_as_user: str | None = "auto"
    bwrap_path: str = "bwrap"
    sandbox_ro_binds: tuple[str, ...] = ()
    venv_python: str = "python3"
    # Quotas on this root (see `_quota`); 0 means none.
    max_clones: int = 0
    max_bytes: int = 0

    def __post_init__(self) -> None:
        self.root = Path(self.root)
        if self.sandbox not in ("none", "bwrap"):
            raise GitHubMCPError(
                ErrorCode.INVALID_INPUT,
                "sandbox must be 'none' or 'bwrap'",
                hint="Set GITHUB_MCP_WORKSPACE_SANDBOX to 'bwrap' (recommended) or 'none'.",
            )


class GitCredentials(Protocol):
    async def auth_header(self) -> str | None:
        """A full Authorization header value, or None for anonymous access."""
        ...

    def clone_url(self, full_name: str) -> str: ...


def basic_auth_header(token: str) -> str:
    """GitHub's git-over-HTTP credentials: Basic `x-access-token:<token>`."""
    raw = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return f"Basic {raw}"


@dataclass
class TokenCredentials:
    """GitHub-style credentials: Basic `x-access-token:<token>` for `<base_url>/<repo>.git`."""

    token: str | None
    base_url: str = "https://github.com"

    async def auth_header(self) -> str | None:
        return basic_auth_header(self.token) if self.token else None

    def clone_url(self, full_name: str) -> str:
        return f"{self.base_url.rstrip('/')}/{full_name}.git"


@dataclass
class Workspace:
    """One (repo, ref) workspace directory and the lock that serialises work in it."""

    full_name: str
    ref: str
    dir: Path
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    kind: RefKind | None = None

    @property
    def repo(self) -> Path:
        return self.dir / "repo"

    @property
    def home(self) -> Path:
        return self.dir / "home"

    @property
    def tmp(self) -> Path:
        return self.dir / "tmp"

    def cloned(self) -> bool:
        git_dir = self.repo / ".git"
        return git_dir.is_dir() and not git_dir.is_symlink()

    def require_clone(self) -> None:
        if not self.cloned():
            raise GitHubMCPError(
                ErrorCode.NOT_FOUND,
                f"no workspace clone of {self.full_name}@{self.ref}",
                hint="call ensure_workspace_clone first",
            )
