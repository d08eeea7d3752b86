"""Unified diffs (DESIGN §6.3): normalisation, parsing, exact application, and
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
"""

from __future__ import annotations

import difflib
import json
import re
from dataclasses import dataclass, field

from github_mcp.errors import ErrorCode, GitHubMCPError, invalid_input

__all__ = [
    "FilePatch",
    "Hunk",
    "apply_file_patch",
    "normalize_patch",
    "parse_patch",
    "unified_diff",
]

_HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")
_FENCE_RE = re.compile(r"^(```|~~~)")
_NO_EOL = "\\ No newline at end of file"
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
_MAX_SHOWN_LINES = 40
_MAX_SHOWN_CHARS = 400

# --------------------------------------------------------------------------- model


@dataclass(slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    header: str
    lines: list[tuple[str, str]] = field(default_factory=list)  # (" "|"-"|"+", text)
    old_no_eol: bool = False  # the old side's last line has no newline
    new_no_eol: bool = False
    line_no: int = 0  # line of the "@@" header in the (normalised) patch

    @property
    def old_lines(self) -> list[str]:
        return [t for op, t in self.lines if op != "+"]

    @property
    def new_lines(self) -> list[str]:
        return [t for op, t in self.lines if op != "-"]


@dataclass(slots=True)
class FilePatch:
    """One file's changes; a None path is /dev/null (file created or deleted)."""

    old_path: str | None
    new_path: str | None
    hunks: list[Hunk] = field(default_factory=list)
    old_mode: str | None = None
    new_mode: str | None = None
    line_no: int = 0

    @property
    def path(self) -> str:
        return self.new_path or self.old_path or ""

    @property
    def is_new(self) -> bool:
        return self.old_path is None

    @property
    def is_deleted(self) -> bool:
        return self.new_path is None

    @property
    def is_rename(self) -> bool:
        return (
            self.old_path is not None
            and self.new_path is not None
            and self.old_path != self.new_path
        )


# --------------------------------------------------------------------------- normalise


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
        raise invalid_input("patch must be a string")
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
    if line.startswith("diff --git ") or _HUNK_RE.match(line):
        return True
    return line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ ")


def _end_of_last_hunk(lines: list[str]) -> int | None:
    last = None
    for i, ln in enumerate(lines):
        if ln.startswith("@@"):
            last = i
    if last is None:
        return None
    m = _HUNK_RE.match(lines[last])
    if m is None:
        return None
    old = int(m.group(2)) if m.group(2) is not None else 1
    new = int(m.group(4)) if m.group(4) is not None else 1
    i = last + 1
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
    if old != 0 or new != 0:
        return None
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    # Never drop what could be more hunk lines (a miscounted hunk): leave those
    # for the parser to reject. format-patch's "-- " signature is not one.
    rest = next((ln for ln in lines[i:] if ln.strip()), None)
    if rest is not None and rest != "-- " and rest[:1] in ("+", "-", " "):
        return None
    # File patches without hunks (renames, mode changes, empty files) may follow.
    while i < len(lines) and lines[i].startswith("diff --git "):
        i += 1
        while i < len(lines) and lines[i].startswith(_EXTENDED_HEADERS):
            i += 1
    return i


# --------------------------------------------------------------------------- parse


def parse_patch(text: str, *, default_path: str | None = None) -> list[FilePatch]:
    """Parse a unified diff covering one or more files.

    Accepts `--- a/x` / `+++ b/x` headers (with or without the a/ b/
    prefixes), `/dev/null` for created and deleted files, and git's extended
    headers (`diff --git`, `new file mode`, `deleted file mode`, `rename
    from/to`, mode changes). Hunks with no file header belong to
    `default_path` when given. Errors are `invalid_input` naming the line.
    """
    if not isinstance(text, str):
        raise invalid_input("patch must be a string")
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    patches: list[FilePatch] = []
    cur: FilePatch | None = None
    git_header = False  # inside a `diff --git` block whose ---/+++ may still come
    i = 0
    n = len(lines)
    while i < n:
        ln = lines[i]
        lineno = i + 1
        if ln.startswith("diff --git "):
            cur = _git_header_patch(ln, lineno)
            patches.append(cur)
            git_header = True
            i += 1
            continue
        if ln.startswith("--- ") and i + 1 < n and lines[i + 1].startswith("+++ "):
            old = _header_path(ln[4:], lineno)
            new = _header_path(lines[i + 1][4:], lineno + 1)
            if old is None and new is None:
                raise invalid_input(f"line {lineno}: both sides of the file header are /dev/null")
            if cur is not None and git_header and not cur.hunks and _same_file(cur, old, new):
                cur.old_path, cur.new_path = old, new
            else:
                cur = FilePatch(old, new, line_no=lineno)
                patches.append(cur)
            git_header = False
            i += 2
            continue
        m = _HUNK_RE.match(ln)
        if m is not None:
            if cur is None:
                if default_path is None:
                    raise invalid_input(
                        f"line {lineno}: hunk before any file header",
                        hint="start each file with '--- a/PATH' and '+++ b/PATH' lines",
                    )
                cur = FilePatch(default_path, default_path, line_no=lineno)
                patches.append(cur)
            git_header = False
            hunk, i = _parse_hunk(lines, i, m)
            cur.hunks.append(hunk)
            continue
        if git_header and cur is not None and _extended_header(cur, ln, lineno):
            i += 1
            continue
        if ln.startswith(("+", "-", " ")) and ln != "-- " and cur is not None and cur.hunks:
            last = cur.hunks[-1]
            raise invalid_input(
                f"line {lineno}: more lines than hunk {len(cur.hunks)} of {cur.path} declares",
                hint=f"the hunk header '{last.header}' counts "
                f"{last.old_count} old and {last.new_count} new lines; fix the counts",
                line=lineno,
            )
        i += 1  # prose between files, "Index:" lines, "====" rulers
    if not patches:
        raise invalid_input(
            "no file patch found", hint="send a unified diff ('--- a/x', '+++ b/x', '@@ ...')"
        )
    _validate(patches)
    return patches


def _same_file(cur: FilePatch, old: str | None, new: str | None) -> bool:
    return (old is None or cur.old_path is None or old == cur.old_path) and (
        new is None or cur.new_path is None or new == cur.new_path
    )


def _git_header_patch(ln: str, lineno: int) -> FilePatch:
    rest = ln[len("diff --git ") :].rstrip("\r")
    old = new = None
    if rest.startswith('"'):
        parts = _split_quoted(rest, lineno)
        if len(parts) == 2:
            old, new = parts
    elif rest.startswith("a/") and " b/" in rest:
        # "a/P b/P": P may hold spaces, so prefer the split that gives equal names.
        half = (len(rest) - 1) // 2
        if rest[half] == " " and rest[:half][2:] == rest[half + 3 :]:
            old, new = rest[:half], "b/" + rest[half + 3 :]
        else:
            old, _, tail = rest.partition(" b/")
            new = "b/" + tail
    return FilePatch(_strip_prefix(old, "a/"), _strip_prefix(new, "b/"), line_no=lineno)


def _strip_prefix(path: str | None, prefix: str) -> str | None:
    if path is None:
        return None
    return path[2:] if path.startswith(prefix) else path


def _split_quoted(rest: str, lineno: int) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(rest):
        if rest[i] == " ":
            i += 1
            continue
        if rest[i] == '"':
            j = i + 1
            while j < len(rest) and rest[j] != '"':
                j += 2 if rest[j] == "\\" else 1
            out.append(_unquote(rest[i : j + 1], lineno))
            i = j + 1
        else:
            j = rest.find(" ", i)
            j = len(rest) if j < 0 else j
            out.append(rest[i:j])
            i = j
    return out


def _unquote(quoted: str, lineno: int) -> str:
    """Undo git's C-style path quoting ("a/\\303\\244.txt")."""
    body = quoted[1:-1]
    out = bytearray()
    i = 0
    simple = {"n": b"\n", "t": b"\t", '"': b'"', "\\": b"\\", "a": b"\a", "b": b"\b"}
    simple.update({"f": b"\f", "r": b"\r", "v": b"\v"})
    while i < len(body):
        c = body[i]
        if c != "\\":
            out += c.encode("utf-8")
            i += 1
            continue
        nxt = body[i + 1 : i + 2]
        if nxt in simple:
            out += simple[nxt]
            i += 2
        elif re.match(r"[0-7]{3}", body[i + 1 : i + 4]):
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            raise invalid_input(f"line {lineno}: bad escape in quoted path {quoted!r}")
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid_input(f"line {lineno}: quoted path is not UTF-8") from None


def _header_path(raw: str, lineno: int) -> str | None:
    raw = raw.rstrip("\r")
    if raw.startswith('"'):
        end = raw.find('"', 1)
        while end > 0 and raw[end - 1] == "\\":
            end = raw.find('"', end + 1)
        path = _unquote(raw[: end + 1], lineno) if end > 0 else raw
    else:
        path = raw.split("\t", 1)[0].rstrip()
    if path == "/dev/null":
        return None
    if path.startswith(("a/", "b/")):
        path = path[2:]
    if not path:
        raise invalid_input(f"line {lineno}: file header has no path")
    return path


def _extended_header(cur: FilePatch, ln: str, lineno: int) -> bool:
    ln = ln.rstrip("\r")
    key, _, value = ln.partition(" ")
    if ln.startswith("new file mode "):
        cur.old_path, cur.new_mode = None, value.split()[-1]
    elif ln.startswith("deleted file mode "):
        cur.new_path, cur.old_mode = None, value.split()[-1]
    elif ln.startswith("old mode "):
        cur.old_mode = ln.split()[-1]
    elif ln.startswith("new mode "):
        cur.new_mode = ln.split()[-1]
    elif ln.startswith(("rename from ", "copy from ")):
        cur.old_path = _header_path(ln.split(" ", 2)[2], lineno)
    elif ln.startswith(("rename to ", "copy to ")):
        cur.new_path = _header_path(ln.split(" ", 2)[2], lineno)
    elif ln.startswith(("GIT binary patch", "Binary files ")):
        raise invalid_input(
            f"line {lineno}: binary patches are not supported",
            hint="write binary files with commit_files instead",
        )
    elif key in ("index", "similarity", "dissimilarity"):
        pass
    else:
        return False
    return True


def _parse_hunk(lines: list[str], i: int, m: re.Match[str]) -> tuple[Hunk, int]:
    lineno = i + 1
    old_count = int(m.group(2)) if m.group(2) is not None else 1
    new_count = int(m.group(4)) if m.group(4) is not None else 1
    hunk = Hunk(
        old_start=int(m.group(1)),
        old_count=old_count,
        new_start=int(m.group(3)),
        new_count=new_count,
        header=lines[i],
        line_no=lineno,
    )
    old_left, new_left = old_count, new_count
    i += 1
    last_op = ""
    while i < len(lines) and (old_left > 0 or new_left > 0):
        ln = lines[i]
        op = ln[:1]
        if ln in ("", "\r"):
            op, ln = " ", " " + ln  # an empty context line whose space was stripped
        if op == " ":
            old_left -= 1
            new_left -= 1
        elif op == "-":
            old_left -= 1
        elif op == "+":
            new_left -= 1
        elif op == "\\":
            _mark_no_eol(hunk, last_op)
            i += 1
            continue
        else:
            break
        if old_left < 0 or new_left < 0:
            break
        hunk.lines.append((op, ln[1:]))
        last_op = op
        i += 1
    if old_left != 0 or new_left != 0:
        got_old = old_count - max(old_left, 0)
        got_new = new_count - max(new_left, 0)
        body_old = sum(1 for op, _ in hunk.lines if op != "+")
        body_new = sum(1 for op, _ in hunk.lines if op != "-")
        raise invalid_input(
            f"line {lineno}: hunk '{hunk.header}' declares {old_count} old and {new_count} "
            f"new lines, but its body has {body_old} and {body_new} before line {i + 1}",
            hint="fix the counts in the @@ header, or send the missing lines",
            line=lineno,
            declared=[old_count, new_count],
            found=[min(got_old, body_old), min(got_new, body_new)],
        )
    while i < len(lines) and lines[i].startswith("\\"):
        _mark_no_eol(hunk, last_op)
        i += 1
    return hunk, i


def _mark_no_eol(hunk: Hunk, op: str) -> None:
    if op in (" ", "-"):
        hunk.old_no_eol = True
    if op in (" ", "+"):
        hunk.new_no_eol = True


def _validate(patches: list[FilePatch]) -> None:
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
            raise invalid_input(f"line {fp.line_no}: file patch names no file")
        if not fp.hunks and not fp.is_rename and fp.old_mode == fp.new_mode:
            if not (fp.is_new or fp.is_deleted):
                raise invalid_input(f"line {fp.line_no}: file patch for {fp.path} has no hunks")
        prev_end = 0
        for k, h in enumerate(fp.hunks, 1):
            if fp.is_new and (h.old_start, h.old_count) != (0, 0):
                raise invalid_input(f"line {h.line_no}: a new file's hunk must start '@@ -0,0'")
            if fp.is_deleted and h.new_count != 0:
                raise invalid_input(f"line {h.line_no}: a deleted file's hunk must end '+0,0 @@'")
            start = h.old_start if h.old_count == 0 else h.old_start - 1
            if h.old_count > 0 and h.old_start < 1:
                raise invalid_input(f"line {h.line_no}: hunk {k} starts at line 0")
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
        raise invalid_input(f"line {lineno}: unsafe or invalid path {path!r} in patch")


# --------------------------------------------------------------------------- apply


def _split_keepends(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out


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
    path = fp.path
    if fp.is_new:
        if original is not None:
            raise _does_not_apply(fp, f"{path} already exists; the patch creates it")
        original = ""
    elif original is None:
        raise _does_not_apply(fp, f"{fp.old_path} does not exist")
    src = _split_keepends(original)
    eol = _dominant_eol(src) if src else "\n"
    ends_with_newline = original.endswith("\n") or not original
    out: list[str] = []
    pos = 0
    touched_end = False
    new_no_eol = old_no_eol = False
    for k, h in enumerate(fp.hunks, 1):
        start = h.old_start if h.old_count == 0 else h.old_start - 1
        expected = h.old_lines
        actual = src[start : start + len(expected)]
        if start > len(src) or [_key(x) for x in actual] != [_key(x) for x in expected]:
            raise _mismatch(fp, k, h, start, src)
        out.extend(src[pos:start])
        j = start
        for op, text in h.lines:
            if op == " ":
                out.append(src[j])
                j += 1
            elif op == "-":
                j += 1
            else:
                out.append(_key(text) + ("\r\n" if text.endswith("\r") else eol))
        pos = j
        if pos >= len(src):
            touched_end = True
            new_no_eol, old_no_eol = h.new_no_eol, h.old_no_eol
    out.extend(src[pos:])
    if fp.is_deleted:
        if out:
            raise _does_not_apply(
                fp,
                f"deleting {path} leaves {len(out)} line(s) the patch does not remove",
                hint="the deletion hunk must remove every line of the file",
            )
        return None
    for idx in range(len(out) - 1):
        if not out[idx].endswith("\n"):
            out[idx] += eol  # a former last line that now has lines after it
    if out:
        if touched_end:
            keep_newline = not new_no_eol and (old_no_eol or ends_with_newline or fp.is_new)
        else:
            keep_newline = out[-1].endswith("\n")
        last = out[-1]
        if keep_newline and not last.endswith("\n"):
            out[-1] = last + eol
        elif not keep_newline and last.endswith("\n"):
            out[-1] = last[:-2] if last.endswith("\r\n") else last[:-1]
    return "".join(out)


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


# --------------------------------------------------------------------------- diff


def unified_diff(old: str | None, new: str | None, path: str, context: int = 3) -> str:
    """A git-style unified diff from `old` to `new` ('' when they are equal).

    None stands for a missing file (shown as /dev/null). Lines compare with
    their endings, so a line-ending change shows; "\\ No newline at end of
    file" marks a last line without one.
    """
    if context < 0:
        raise invalid_input("context must not be negative")
    if old == new:
        return ""
    a = _split_keepends(old or "")
    b = _split_keepends(new or "")
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
