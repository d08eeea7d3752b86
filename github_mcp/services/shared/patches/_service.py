"""Unified diffs: normalisation, parsing, exact application, and
generation.

`normalize_patch` repairs what assistants commonly send (code fences, literal
"\\n" escapes, CRLF transport, prose around the diff). `parse_patch` reads one
or many file patches, git extended headers included, and checks every hunk's
line counts against its header. `apply_file_patch` applies a file patch
exactly: each hunk at the line it names, every context and removed line equal
to the file's, no fuzz and no offset search; a mismatch raises
`patch_does_not_apply` with the hunk, the lines expected and the lines found.

Line endings: lines are compared without their ending, the file's own endings
are kept on untouched lines, and added lines take the file's dominant ending
(CRLF stays CRLF). Hunk header new-side positions are not checked: they follow
from the old side, and assistants often miscount them.

Modules: `patch_model` (Hunk, FilePatch), `patch_normalize`, `patch_parse`, `patch_apply`,
`patch_diff`; this one gathers their public names.
"""

from __future__ import annotations

from github_mcp.services.shared.patches._apply import apply_file_patch
from github_mcp.services.shared.patches._diff import unified_diff
from github_mcp.services.shared.patches._model import FilePatch, Hunk
from github_mcp.services.shared.patches._normalize import normalize_patch
from github_mcp.services.shared.patches._parse import parse_patch

__all__ = [
    "FilePatch",
    "Hunk",
    "apply_file_patch",
    "normalize_patch",
    "parse_patch",
    "unified_diff",
]
