"""Repairing a unified diff as assistants send it: literal "\\n" escapes, CRLF transport,
code fences, and prose before the first header or after the last hunk."""

from __future__ import annotations

import json
import re

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.shared.patches._model import HUNK_RE

_FENCE_RE = re.compile(r"^(```|~~~)")
_EXTENDED_HEADERS = (
    "old mode ",
    "new mode ",
    "deleted file mode ",
    "new file mode ",
    "rename from ",
    "rename to ",
    "copy from ",
    "copy to ",
    "similarity index ",
    "dissimilarity index ",
    "index ",
)


def normalize_patch(text: str) -> str:
    """Repair a unified diff as sent by an assistant; returns LF-terminated text.

    - literal "\\n" escapes, when the text has no real line break but reads as
      a diff, become line breaks (JSON string escapes are undone first);
    - CRLF everywhere (a transport artefact) becomes LF; a diff whose content
      lines alone end in CR (a CRLF file diffed by git) is left alone;
    - markdown code fences and prose before the first header go;
    - anything after the last hunk's counted lines goes (prose, stray fences).
    """
    if not isinstance(text, str):
        raise invalid_input(
            "patch must be a string",
            hint="Send the patch as one string in unified diff format (git diff output).",
        )
    text = _unescape(text)
    if "\r\n" in text and text.count("\r\n") == text.count("\n"):
        text = text.replace("\r\n", "\n")
    lines = text.split("\n")
    lines = _strip_fences(lines)
    start = next((i for i, ln in enumerate(lines) if _is_header(ln, lines, i)), None)
    if start is None:
        return "\n".join(lines).strip("\n") + "\n" if text.strip() else ""
    lines = lines[start:]
    end = _end_of_last_hunk(lines)
    if end is not None:
        lines = lines[:end]
    while lines and lines[-1] == "":
        lines.pop()
    return "\n".join(lines) + "\n"


def _unescape(text: str) -> str:
    body = text.strip()
    if "\n" in body or "\\n" not in body:
        return text
    if not re.search(r"(^|\\n)(@@ -\d|--- |diff --git )", body):
        return text
    try:
        decoded = json.loads(f'"{body}"')
        if isinstance(decoded, str) and "\n" in decoded:
            return decoded
    except ValueError:
        pass
    body = body.replace("\\r\\n", "\n")
    return re.sub(r"(?<!\\)\\n", "\n", body)


def _strip_fences(lines: list[str]) -> list[str]:
    """Keep the fenced blocks that hold a diff (all of them, in order), or,
    when none does, drop the fence lines themselves."""
    blocks: list[list[str]] = []
    i = 0
    while i < len(lines):
        if _FENCE_RE.match(lines[i]):
            j = i + 1
            while j < len(lines) and lines[j].strip() not in ("```", "~~~"):
                j += 1
            blocks.append(lines[i + 1 : j])
            i = j + 1
        else:
            i += 1
    if not blocks:
        return lines
    diffs = [b for b in blocks if any(ln.startswith(("--- ", "diff --git ", "@@ ")) for ln in b)]
    if diffs:
        return [ln for b in diffs for ln in b]
    return [ln for ln in lines if not _FENCE_RE.match(ln)]


def _is_header(line: str, lines: list[str], i: int) -> bool:
    if line.startswith("diff --git ") or HUNK_RE.match(line):
        return True
    return line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _end_of_last_hunk(lines: list[str]) -> int | None:
    last = None
    for i, ln in enumerate(lines):
        if ln.startswith("@@"):
            last = i
    if last is None:
        return None
    m = HUNK_RE.match(lines[last])
    if m is None:
        return None
    old = int(m.group(2)) if m.group(2) is not None else 1
    new = int(m.group(4)) if m.group(4) is not None else 1
    end = _hunk_body_end(lines, last + 1, old, new)
    if end is None:
        return None
    i = end
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    # Never drop what could be more hunk lines (a miscounted hunk): leave those
    # for the parser to reject. format-patch's "-- " signature is not one.
    rest = next((ln for ln in lines[i:] if ln.strip()), None)
    if rest is not None and rest != "-- " and rest[:1] in ("+", "-", " "):
        return None
    return _skip_headerless_patches(lines, i)


def _hunk_body_end(lines: list[str], i: int, old: int, new: int) -> int | None:
    """Where a hunk body starting at line i ends when it holds exactly old/new lines;
    None when the counts do not add up or a line is no hunk line."""
    while i < len(lines) and (old > 0 or new > 0):
        ln = lines[i]
        op = ln[:1]
        if op == " " or ln in ("", "\r"):
            old, new = old - 1, new - 1
        elif op == "-":
            old -= 1
        elif op == "+":
            new -= 1
        elif op != "\\":
            return None  # malformed: let the parser report it
        i += 1
    return i if old == 0 and new == 0 else None


def _skip_headerless_patches(lines: list[str], i: int) -> int:
    """File patches without hunks (renames, mode changes, empty files) may follow."""
    while i < len(lines) and lines[i].startswith("diff --git "):
        i += 1
        while i < len(lines) and lines[i].startswith(_EXTENDED_HEADERS):
            i += 1
    return i
