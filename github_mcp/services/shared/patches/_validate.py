"""Checks on parsed file patches: safe, readable paths; each file once; hunks that fit a
new or deleted file and come in order without overlapping."""

from __future__ import annotations

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import hidden_characters, make_visible
from github_mcp.services.shared.patches._model import FilePatch


def validate_patches(patches: list[FilePatch]) -> None:
    seen: set[str] = set()
    for fp in patches:
        for p in (fp.old_path, fp.new_path):
            if p is not None:
                _check_path(p, fp.line_no)
        key = fp.old_path or fp.new_path or ""
        if key in seen:
            raise invalid_input(
                f"line {fp.line_no}: {key} appears in more than one file patch",
                hint="merge its hunks into one file patch",
            )
        seen.add(key)
        if fp.old_path is None and fp.new_path is None:
            raise invalid_input(
                f"line {fp.line_no}: file patch names no file",
                hint=(
                    "Each file patch needs '--- a/PATH' and '+++ b/PATH' lines. Regenerate "
                    "the patch with git diff, or send the whole new content with "
                    "apply_text_update_and_commit."
                ),
            )
        if not fp.hunks and not fp.is_rename and fp.old_mode == fp.new_mode:
            if not (fp.is_new or fp.is_deleted):
                raise invalid_input(
                    f"line {fp.line_no}: file patch for {fp.path} has no hunks",
                    hint=(
                        "Add the hunks that change the file, or drop this file's header. "
                        "Regenerate the patch with git diff, or send the whole new content with "
                        "apply_text_update_and_commit."
                    ),
                )
        _validate_hunks(fp)


def _validate_hunks(fp: FilePatch) -> None:
    """Hunks fit the file's kind (new, deleted), start at a line and come in order."""
    prev_end = 0
    for k, h in enumerate(fp.hunks, 1):
        if fp.is_new and (h.old_start, h.old_count) != (0, 0):
            raise invalid_input(
                f"line {h.line_no}: a new file's hunk must start '@@ -0,0'",
                hint=(
                    "A new file's hunk starts '@@ -0,0 +1,N @@'. Regenerate the patch with "
                    "git diff, or send the whole new content with "
                    "apply_text_update_and_commit."
                ),
            )
        if fp.is_deleted and h.new_count != 0:
            raise invalid_input(
                f"line {h.line_no}: a deleted file's hunk must end '+0,0 @@'",
                hint=(
                    "A deleted file's hunk ends '+0,0 @@'. Regenerate the patch with git "
                    "diff, or send the whole new content with apply_text_update_and_commit."
                ),
            )
        start = h.old_start if h.old_count == 0 else h.old_start - 1
        if h.old_count > 0 and h.old_start < 1:
            raise invalid_input(
                f"line {h.line_no}: hunk {k} starts at line 0",
                hint=(
                    "Hunk line numbers start at 1 ('@@ -1,N ...'). Regenerate the patch "
                    "with git diff, or send the whole new content with "
                    "apply_text_update_and_commit."
                ),
            )
        if start < prev_end:
            raise invalid_input(
                f"line {h.line_no}: hunk {k} of {fp.path} overlaps or precedes hunk {k - 1}",
                hint="order hunks by line and merge overlapping ones",
            )
        prev_end = start + h.old_count


def _check_path(path: str, lineno: int) -> None:
    bad = (
        path.startswith("/")
        or "\\" in path
        or "\x00" in path
        or len(path) > 4096
        or any(seg in ("", ".", "..") for seg in path.split("/"))
    )
    if bad:
        raise invalid_input(
            f"line {lineno}: unsafe or invalid path {path!r} in patch",
            hint=(
                "Use a path relative to the repository root, without '..', a leading "
                "'/' or control characters."
            ),
        )
    hidden = hidden_characters(path)
    if hidden:
        raise invalid_input(
            f"line {lineno}: path {make_visible(path)!r} in patch contains invisible, "
            f"direction-changing or control characters ({', '.join(hidden[:5])})",
            hint="Use a plainly readable file name.",
        )
