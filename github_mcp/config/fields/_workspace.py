"""Settings fields: workspace clones (location, quotas, command containment) and the read cache.
Mixed into `Settings` in github_mcp/config/__init__.py."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field
from pydantic_settings import BaseSettings, SettingsConfigDict

from github_mcp.config.fields._access import env
from github_mcp.config.fields._state_home import InStateHome


class WorkspaceSettings(BaseSettings):
    """Workspace clones and the containment of commands run in them."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    workspace_dir: Path = Field(
        default_factory=InStateHome("workspaces"),
        validation_alias=env("GITHUB_MCP_WORKSPACE_DIR"),
        description="Where persistent clones live.",
    )
    workspace_sandbox: Literal["none", "bwrap"] = Field(
        "bwrap",
        validation_alias=env("GITHUB_MCP_WORKSPACE_SANDBOX"),
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
        validation_alias=env("GITHUB_MCP_WORKSPACE_CPU_SECONDS"),
        description="CPU-time limit for a workspace command.",
    )
    workspace_memory_mb: int = Field(
        4096,
        ge=64,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MEMORY_MB"),
        description="Memory limit (MB) for a workspace command.",
    )
    workspace_max_processes: int = Field(
        256,
        ge=8,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MAX_PROCESSES"),
        description="Process-count limit for a workspace command.",
    )
    workspace_max_file_mb: int = Field(
        1024,
        ge=1,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MAX_FILE_MB"),
        description="Largest file (MB) a workspace command may write.",
    )
    workspace_default_timeout: int = Field(
        300,
        ge=1,
        validation_alias=env("GITHUB_MCP_WORKSPACE_TIMEOUT"),
        description="Default command timeout in seconds.",
    )
    workspace_max_timeout: int = Field(
        3600,
        ge=1,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MAX_TIMEOUT"),
        description="Largest timeout a caller may ask for.",
    )
    workspace_max_clones_per_user: int = Field(
        20,
        ge=0,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MAX_CLONES_PER_USER"),
        description="Most workspace clones one user may hold (each signed-in user's under "
        "`<workspace dir>/users/<login>`; with `bearer` or `none` auth, the one shared "
        "workspace root). A clone past it is refused with `quota_exceeded`, listing the "
        "user's clones; `remove_workspace_clone` frees a slot. 0: no limit.",
    )
    workspace_max_bytes_per_user: int = Field(
        10 * 1024**3,
        ge=0,
        validation_alias=env("GITHUB_MCP_WORKSPACE_MAX_BYTES_PER_USER"),
        description="Disk bytes one user's workspace root may use (clones, venvs, HOME "
        "caches, build outputs). Checked before each new clone and each command: at or "
        "over it they are refused with `quota_exceeded` (a running command may overshoot; "
        "commits and pushes still work). `ensure_workspace_clone` with reset=true or "
        "`remove_workspace_clone` frees space. 0: no limit.",
    )
    tool_stdout_max_chars: int = Field(
        12000,
        ge=100,
        validation_alias=env("TOOL_STDOUT_MAX_CHARS"),
        description="stdout cap for workspace commands (head and tail kept).",
    )
    tool_stderr_max_chars: int = Field(
        6000,
        ge=100,
        validation_alias=env("TOOL_STDERR_MAX_CHARS"),
        description="stderr cap for workspace commands (head and tail kept).",
    )
    git_user_name: str = Field(
        "GitHub MCP Controller",
        validation_alias=env("GITHUB_MCP_GIT_USER_NAME"),
        description="Author name for workspace commits.",
    )
    git_user_email: str = Field(
        "github-mcp@users.noreply.github.com",
        validation_alias=env("GITHUB_MCP_GIT_USER_EMAIL"),
        description="Author e-mail for workspace commits.",
    )


class CacheSettings(BaseSettings):
    """The read cache."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    cache_max_entries: int = Field(
        5000,
        ge=0,
        validation_alias=env("GITHUB_MCP_CACHE_MAX_ENTRIES"),
        description="LRU capacity of the in-process cache (0 disables it).",
    )
    cache_ttl_seconds: float = Field(
        60.0,
        ge=0,
        validation_alias=env("GITHUB_MCP_CACHE_TTL_SECONDS"),
        description="TTL for cached mutable reads (branch heads, PRs); content addressed "
        "by SHA never expires. After the TTL, reads revalidate with ETags.",
    )
