"""The Settings fields, grouped by capability into mixins that `Settings` (github_mcp/config.py)
is composed from; the validators and derived values live on `Settings` itself."""

from ._access import (
    DEFAULT_TOOLSETS,
    TOOLSETS,
    GitHubAccessSettings,
    Toolset,
    ToolSurfaceSettings,
)
from ._policy import WritePolicySettings
from ._serving import HostedSignInSettings, HttpTransportSettings
from ._workspace import CacheSettings, WorkspaceSettings

__all__ = [
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
