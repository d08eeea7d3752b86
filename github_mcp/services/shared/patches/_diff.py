"""Generating a git-style unified diff between two texts."""

from __future__ import annotations

import difflib

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.shared.patches._model import split_keepends

_NO_EOL = "\\ No newline at end of file"


def unified_diff(old: str | None, new: str | None, path: str, context: int = 3) -> str:
    """A git-style unified diff from `old` to `new` ('' when they are equal).

    None stands for a missing file (shown as /dev/null). Lines compare with
    their endings, so a line-ending change shows; "\\ No newline at end of
    file" marks a last line without one.
    """
    if context < 0:
        raise invalid_input("context must not be negative", hint="Give context as 0 or more lines.")
    if old == new:
        return ""
    a = split_keepends(old or "")
    b = split_keepends(new or "")
    head = [
        f"--- {'/dev/null' if old is None else 'a/' + path}",
        f"+++ {'/dev/null' if new is None else 'b/' + path}",
    ]
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for group in matcher.get_grouped_opcodes(context):
        i1, i2 = group[0][1], group[-1][2]
        j1, j2 = group[0][3], group[-1][4]
        out.append(f"@@ -{_range(i1, i2)} +{_range(j1, j2)} @@")
        for tag, a1, a2, b1, b2 in group:
            if tag == "equal":
                out.extend(_emit(" ", a[a1:a2]))
                continue
            out.extend(_emit("-", a[a1:a2]))
            out.extend(_emit("+", b[b1:b2]))
    if not out:
        if old is None or new is None:
            return "\n".join(head) + "\n"  # an empty file created or deleted
        return ""
    return "\n".join(head + out) + "\n"


def _range(start: int, stop: int) -> str:
    length = stop - start
    if length == 1:
        return str(start + 1)
    return f"{start + 1 if length else start},{length}"


def _emit(op: str, lines: list[str]) -> list[str]:
    out: list[str] = []
    for ln in lines:
        if ln.endswith("\n"):
            out.append(op + ln[:-1])
        else:
            out.append(op + ln)
            out.append(_NO_EOL)
    return out
