"""Unified diffs: normalising what a model sends, parsing, exact application, and
making a diff from two texts.

The modules behind this face are private; import from the package.
"""

from __future__ import annotations

from github_mcp.services.shared.patches._service import (
    apply_file_patch,
    normalize_patch,
    parse_patch,
    unified_diff,
)

__all__ = [
    "apply_file_patch",
    "normalize_patch",
    "parse_patch",
    "unified_diff",
]
