"""Exact application of a file patch: each hunk at the line it names, no fuzz and no
offset search; a mismatch raises `patch_does_not_apply` with what was expected and found."""

from __future__ import annotations

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.shared.patches._model import FilePatch, Hunk, split_keepends

_MAX_SHOWN_LINES = 40
_MAX_SHOWN_CHARS = 400


def _key(line: str) -> str:
    if line.endswith("\n"):
        line = line[:-1]
    return line[:-1] if line.endswith("\r") else line


def _dominant_eol(lines: list[str]) -> str:
    crlf = sum(1 for ln in lines if ln.endswith("\r\n"))
    return "\r\n" if crlf * 2 > sum(1 for ln in lines if ln.endswith("\n")) else "\n"


def apply_file_patch(original: str | None, fp: FilePatch) -> str | None:
    """Apply `fp` to `original` (None: the file does not exist).

    Returns the new text, or None when the patch deletes the file. Raises
    `patch_does_not_apply` when the file's state or lines differ from the
    patch's, with details {path, hunk, hunk_header, expected, actual, at_line}.
    """
    original = _starting_text(original, fp)
    src = split_keepends(original)
    eol = _dominant_eol(src) if src else "\n"
    out, last_hunk = _apply_hunks(src, fp, eol)
    if fp.is_deleted:
        if out:
            raise _does_not_apply(
                fp,
                f"deleting {fp.path} leaves {len(out)} line(s) the patch does not remove",
                hint="the deletion hunk must remove every line of the file",
            )
        return None
    for idx in range(len(out) - 1):
        if not out[idx].endswith("\n"):
            out[idx] += eol  # a former last line that now has lines after it
    if out:
        if last_hunk is not None:
            ends_with_newline = original.endswith("\n") or not original
            keep_newline = not last_hunk.new_no_eol and (
                last_hunk.old_no_eol or ends_with_newline or fp.is_new
            )
        else:
            keep_newline = out[-1].endswith("\n")
        out[-1] = _with_final_newline(out[-1], keep_newline, eol)
    return "".join(out)


def _starting_text(original: str | None, fp: FilePatch) -> str:
    """The text the patch starts from: "" for a new file; refuses a state the patch denies."""
    if fp.is_new:
        if original is not None:
            raise _does_not_apply(fp, f"{fp.path} already exists; the patch creates it")
        return ""
    if original is None:
        raise _does_not_apply(fp, f"{fp.old_path} does not exist")
    return original


def _apply_hunks(src: list[str], fp: FilePatch, eol: str) -> tuple[list[str], Hunk | None]:
    """The patched lines, and the hunk that reached the end of the file (None: none did)."""
    out: list[str] = []
    pos = 0
    last_hunk: Hunk | None = None
    for k, h in enumerate(fp.hunks, 1):
        start = h.old_start if h.old_count == 0 else h.old_start - 1
        expected = h.old_lines
        actual = src[start : start + len(expected)]
        if start > len(src) or [_key(x) for x in actual] != [_key(x) for x in expected]:
            raise _mismatch(fp, k, h, start, src)
        out.extend(src[pos:start])
        pos = _apply_hunk(h, src, start, out, eol)
        if pos >= len(src):
            last_hunk = h
    out.extend(src[pos:])
    return out, last_hunk


def _apply_hunk(h: Hunk, src: list[str], j: int, out: list[str], eol: str) -> int:
    """Append hunk h's new lines to out; returns the source line after the hunk."""
    for op, text in h.lines:
        if op == " ":
            out.append(src[j])
            j += 1
        elif op == "-":
            j += 1
        else:
            out.append(_key(text) + ("\r\n" if text.endswith("\r") else eol))
    return j


def _with_final_newline(last: str, keep_newline: bool, eol: str) -> str:
    if keep_newline and not last.endswith("\n"):
        return last + eol
    if not keep_newline and last.endswith("\n"):
        return last[:-2] if last.endswith("\r\n") else last[:-1]
    return last


def _does_not_apply(fp: FilePatch, message: str, hint: str | None = None) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.PATCH_DOES_NOT_APPLY,
        message,
        hint=hint or "re-read the file and rebuild the patch against its current content",
        path=fp.path,
    )


def _shown(lines: list[str]) -> list[str]:
    return [_key(x)[:_MAX_SHOWN_CHARS] for x in lines[:_MAX_SHOWN_LINES]]


def _mismatch(fp: FilePatch, k: int, h: Hunk, start: int, src: list[str]) -> GitHubMCPError:
    expected = h.old_lines
    actual = src[start : start + max(len(expected), 1)]
    keys = [_key(x) for x in src]
    want = [_key(x) for x in expected]
    found = [
        i + 1 for i in range(len(keys) - len(want) + 1) if want and keys[i : i + len(want)] == want
    ][:5]
    if found:
        hint = (
            f"these lines are at line {', '.join(map(str, found))}, not {start + 1}: "
            "fix the hunk header"
        )
    else:
        hint = "the file differs from what the patch expects; re-read it and rebuild the patch"
    return GitHubMCPError(
        ErrorCode.PATCH_DOES_NOT_APPLY,
        f"hunk {k} of {fp.path} does not apply at line {start + 1}",
        hint=hint,
        path=fp.path,
        hunk=k,
        hunk_header=h.header,
        expected=_shown(expected),
        actual=_shown(actual),
        at_line=start + 1,
        found_at=found or None,
    )
