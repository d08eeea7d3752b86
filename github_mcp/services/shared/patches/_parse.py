"""Parsing unified diffs: one or many file patches, git extended headers and quoted
paths, every hunk's line counts checked against its header, unsafe paths refused."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.shared.patches._model import HUNK_RE, FilePatch, Hunk
from github_mcp.services.shared.patches._validate import validate_patches


def parse_patch(text: str, *, default_path: str | None = None) -> list[FilePatch]:
    """Parse a unified diff covering one or more files.

    Accepts `--- a/x` / `+++ b/x` headers (with or without the a/ b/
    prefixes), `/dev/null` for created and deleted files, and git's extended
    headers (`diff --git`, `new file mode`, `deleted file mode`, `rename
    from/to`, mode changes). Hunks with no file header belong to
    `default_path` when given. Errors are `invalid_input` naming the line.
    """
    if not isinstance(text, str):
        raise invalid_input(
            "patch must be a string",
            hint="Send the patch as one string in unified diff format (git diff output).",
        )
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    parser = _Parser(lines, default_path)
    i = 0
    while i < len(lines):
        i = parser.step(i)
    if not parser.patches:
        raise invalid_input(
            "no file patch found", hint="send a unified diff ('--- a/x', '+++ b/x', '@@ ...')"
        )
    validate_patches(parser.patches)
    return parser.patches


@dataclass
class _Parser:
    lines: list[str]
    default_path: str | None
    patches: list[FilePatch] = field(default_factory=list)
    cur: FilePatch | None = None
    git_header: bool = False  # inside a `diff --git` block whose ---/+++ may still come

    def step(self, i: int) -> int:
        """Read the line at i (and what belongs to it); the index of the next one."""
        lines, ln, lineno = self.lines, self.lines[i], i + 1
        if ln.startswith("diff --git "):
            self._start(_git_header_patch(ln, lineno), git_header=True)
            return i + 1
        if ln.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            found = _file_header(lines, i, self.cur if self.git_header else None)
            if found is not self.cur:
                self._start(found)
            self.git_header = False
            return i + 2
        m = HUNK_RE.match(ln)
        if m is not None:
            return self._hunk(i, m)
        cur = self.cur
        if self.git_header and cur is not None and _extended_header(cur, ln, lineno):
            return i + 1
        if ln.startswith(("+", "-", " ")) and ln != "-- " and cur is not None and cur.hunks:
            raise _too_many_lines(cur, lineno)
        return i + 1  # prose between files, "Index:" lines, "====" rulers

    def _start(self, patch: FilePatch, *, git_header: bool = False) -> None:
        self.cur = patch
        self.patches.append(patch)
        self.git_header = git_header

    def _hunk(self, i: int, m: re.Match[str]) -> int:
        if self.cur is None:
            self._start(_headerless_patch(self.default_path, i + 1))
        assert self.cur is not None
        self.git_header = False
        hunk, after = _parse_hunk(self.lines, i, m)
        self.cur.hunks.append(hunk)
        return after


def _file_header(lines: list[str], i: int, git_patch: FilePatch | None) -> FilePatch:
    """The file patch a `---`/`+++` pair at line i names: git_patch (the `diff --git`
    block it completes, when it is one) or a new one."""
    lineno = i + 1
    old = _header_path(lines[i][4:], lineno)
    new = _header_path(lines[i + 1][4:], lineno + 1)
    if old is None and new is None:
        raise invalid_input(
            f"line {lineno}: both sides of the file header are /dev/null",
            hint=(
                "A file header needs a real path on at least one side (--- a/PATH or "
                "+++ b/PATH). Regenerate the patch with git diff, or send the whole new "
                "content with apply_text_update_and_commit."
            ),
        )
    if git_patch is not None and not git_patch.hunks and _same_file(git_patch, old, new):
        git_patch.old_path, git_patch.new_path = old, new
        return git_patch
    return FilePatch(old, new, line_no=lineno)


def _headerless_patch(default_path: str | None, lineno: int) -> FilePatch:
    if default_path is None:
        raise invalid_input(
            f"line {lineno}: hunk before any file header",
            hint="start each file with '--- a/PATH' and '+++ b/PATH' lines",
        )
    return FilePatch(default_path, default_path, line_no=lineno)


def _too_many_lines(cur: FilePatch, lineno: int) -> Exception:
    last = cur.hunks[-1]
    return invalid_input(
        f"line {lineno}: more lines than hunk {len(cur.hunks)} of {cur.path} declares",
        hint=f"the hunk header '{last.header}' counts "
        f"{last.old_count} old and {last.new_count} new lines; fix the counts",
        line=lineno,
    )


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
            raise invalid_input(
                f"line {lineno}: bad escape in quoted path {quoted!r}",
                hint=(
                    "Use git's escapes in quoted paths (backslash, quote, tab, newline or octal). "
                    "Regenerate the patch with git diff, or send the whole new content with "
                    "apply_text_update_and_commit."
                ),
            )
    try:
        return out.decode("utf-8")
    except UnicodeDecodeError:
        raise invalid_input(
            f"line {lineno}: quoted path is not UTF-8",
            hint=(
                "Quote only UTF-8 paths in the patch, as git diff does. Regenerate the "
                "patch with git diff, or send the whole new content with "
                "apply_text_update_and_commit."
            ),
        ) from None


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
        raise invalid_input(
            f"line {lineno}: file header has no path",
            hint=(
                "Give the path after '--- a/' and '+++ b/'. Regenerate the patch with "
                "git diff, or send the whole new content with "
                "apply_text_update_and_commit."
            ),
        )
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
