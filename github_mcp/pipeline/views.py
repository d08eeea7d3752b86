"""Which tools a view lists: a pure function of the view, the tool's name, toolset and
whether it writes, and what the session enabled. The call seam (seam.py) also refuses
what a view cannot call (a write in a read-only view); the listing applies it per session."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.tool_spec import ToolSpec

# Read a repository, batch and slice files, search, see a PR, make the common edit, open a
# PR, and approve a write: what most sessions need before they would look for anything else.
CORE_TOOLS = frozenset(
    {
        "get_me",
        "get_repository",
        "list_branches",
        "list_repository_tree",
        "get_file_contents",
        "get_file_slice",
        "fetch_files",
        "search",
        "get_issue",
        "list_pull_requests",
        "get_pr_overview",
        "create_branch",
        "apply_patch_and_commit",
        "create_pull_request",
        "authorize_write_actions",
    }
)
CATALOG_TOOLS = frozenset({"find_tools", "enable_toolset"})
FALSE_WORDS = {"", "false", "f", "no", "n", "0", "off"}  # as the official server reads them


@dataclass(frozen=True)
class View:
    """What one session lists: toolsets, single tools, the core set, read-only."""

    toolsets: frozenset[str]
    tools: frozenset[str] = frozenset()
    core: bool = False
    read_only: bool = False

    def shows(self, spec: ToolSpec, enabled: set[str]) -> bool:
        return self.shows_tool(spec.name, spec.toolset.value, spec.write, enabled)

    def shows_tool(self, name: str, toolset: str, write: bool, enabled: set[str]) -> bool:
        if self.read_only and write:
            return False
        if name in self.tools or toolset in enabled:
            return True
        if self.core:
            return name in CORE_TOOLS
        return toolset in self.toolsets


def settings_view(settings: Settings) -> View:
    """What a session lists when the client chooses nothing itself (over HTTP it may:
    catalog/tool_catalog.view_of)."""
    core = settings.tools == "core"
    return View(
        settings.listed_toolsets,
        frozenset() if core else settings.listed_tools,
        core=core,
        read_only=settings.read_only,
    )
