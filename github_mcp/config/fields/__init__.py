"""The Settings fields, grouped by capability into mixins that `Settings` (github_mcp.config)
is composed from; the validators and derived values live on `Settings` itself."""

from github_mcp.config.fields._access import (
    DEFAULT_TOOLS,
    DEFAULT_TOOLSETS,
    TOOLSETS,
    GitHubAccessSettings,
    Toolset,
    ToolSurfaceSettings,
)
from github_mcp.config.fields._policy import WritePolicySettings
from github_mcp.config.fields._serving import HostedSignInSettings, HttpTransportSettings
from github_mcp.config.fields._workspace import CacheSettings, WorkspaceSettings

__all__ = [
    "DEFAULT_TOOLS",
    "DEFAULT_TOOLSETS",
    "TOOLSETS",
    "CacheSettings",
    "GitHubAccessSettings",
    "HostedSignInSettings",
    "HttpTransportSettings",
    "ToolSurfaceSettings",
    "Toolset",
    "WorkspaceSettings",
    "WritePolicySettings",
]
