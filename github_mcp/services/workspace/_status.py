"""Pure helpers for the workspace: git porcelain parsing and test-command handling."""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

VENV_DIR = ".venv-mcp"

_STATUS_WORDS = {
    "M": "modified",
    "A": "added",
    "D": "deleted",
    "R": "renamed",
    "C": "copied",
    "T": "type_changed",
}


@dataclass
class StatusEntry:
    path: str
    status: str
    staged: bool
    orig_path: str | None = None

    def to_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"path": self.path, "status": self.status}
        if self.orig_path:
            out["from"] = self.orig_path
        return out


def _word(x: str, y: str) -> str:
    if x == "?":
        return "untracked"
    if "U" in (x, y) or x + y in ("AA", "DD"):
        return "conflicted"
    return _STATUS_WORDS.get(x if x != " " else y, "modified")


def parse_porcelain_z(out: str) -> list[StatusEntry]:
    """`git status --porcelain=v1 -z` → entries (rename sources are folded in)."""
    entries: list[StatusEntry] = []
    items = out.split("\0")
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if len(item) < 4:
            continue
        x, y, path = item[0], item[1], item[3:]
        orig = None
        if x in "RC" and i < len(items):
            orig = items[i]
            i += 1
        if path == VENV_DIR or path.startswith(VENV_DIR + "/"):
            continue
        entries.append(StatusEntry(path, _word(x, y), x not in " ?", orig))
    return entries


def parse_numstat_z(out: str) -> tuple[int, int, int]:
    """`git diff --numstat -z` → (files, insertions, deletions); binary files count 0 lines."""
    files = ins = dels = 0
    items = out.split("\0")
    i = 0
    while i < len(items):
        item = items[i]
        i += 1
        if not item:
            continue
        parts = item.split("\t", 2)
        if len(parts) < 3:
            continue
        if parts[2] == "":  # rename: the two paths follow as their own items
            i += 2
        files += 1
        ins += int(parts[0]) if parts[0].isdigit() else 0
        dels += int(parts[1]) if parts[1].isdigit() else 0
    return files, ins, dels


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_PYTHON = re.compile(r"^python(\d+(\.\d+)?)?$")


def is_pytest_command(command: str) -> bool:
    """True for a simple `pytest …` / `python -m pytest …` we can append `--junitxml` to.

    Pipelines, lists, redirections, comments and `--` are left alone: appending an option
    to them could change what they mean.
    """
    lex = shlex.shlex(command, posix=True, punctuation_chars=True)
    lex.whitespace_split = True
    lex.commenters = ""
    try:
        tokens = list(lex)
    except ValueError:
        return False
    if not tokens or "\n" in command:
        return False
    for tok in tokens:
        if tok == "--" or tok.startswith("#") or (tok and set(tok) <= set("();<>|&")):
            return False
    i = 0
    while i < len(tokens) and _ASSIGNMENT.match(tokens[i]):
        i += 1
    if i >= len(tokens):
        return False
    exe = os.path.basename(tokens[i])
    if exe in ("pytest", "py.test"):
        return True
    return bool(_PYTHON.match(exe)) and tokens[i + 1 : i + 3] == ["-m", "pytest"]


_HINTS = (
    (re.compile(r"(^|[\s/])(pytest|py\.test)(\s|$)|-m\s+pytest\b"), "pytest"),
    (re.compile(r"-m\s+unittest\b"), "unittest"),
    (re.compile(r"(^|[\s/])go\s+test\b"), "go"),
    (re.compile(r"(^|[\s/])cargo\s+(test|nextest)\b"), "cargo"),
    (re.compile(r"\bvitest\b"), "vitest"),
    (re.compile(r"\bjest\b"), "jest"),
    (re.compile(r"(^|[\s/])mvnw?\b"), "maven"),
)


def runner_hint(command: str) -> str | None:
    """The runner a test command names, for output too terse to identify (`pytest -q`)."""
    for pattern, runner in _HINTS:
        if pattern.search(command):
            return runner
    return None


def count_text_lines(data: bytes | None) -> int:
    if not data or b"\0" in data[:8192]:
        return 0
    return data.count(b"\n") + (0 if data.endswith(b"\n") else 1)
