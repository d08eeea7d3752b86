"""The Settings fields, grouped by capability into mixins that `Settings` (github_mcp/config.py)
is composed from; the validators and derived values live on `Settings` itself."""

from ._access import TOOLSETS, GitHubAccessSettings, Toolset, ToolSurfaceSettings
from ._policy import WritePolicySettings
from ._serving import HostedSignInSettings, HttpTransportSettings
from ._workspace import CacheSettings, WorkspaceSettings

__all__ = [
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
