"""Repository trees: the recursive listing (completed when GitHub truncates it) and the
four-layer filter (platform, .gitignore, user patterns, size).

The modules behind this face are private; import from the package.
"""

from __future__ import annotations

from github_mcp.services.repos.tree._repo_tree import list_tree
from github_mcp.services.repos.tree._result import Excluded, ExcludedDirectory, TreeFile, TreeResult
from github_mcp.services.repos.tree._service import TreeEntry, filter_entries

__all__ = [
    "Excluded",
    "ExcludedDirectory",
    "TreeEntry",
    "TreeFile",
    "TreeResult",
    "filter_entries",
    "list_tree",
]
