"""Unified-diff data shared by the patch modules: hunks, file patches, the hunk header
pattern and line splitting that keeps endings."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

HUNK_RE = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$")


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


def split_keepends(text: str) -> list[str]:
    parts = text.split("\n")
    out = [p + "\n" for p in parts[:-1]]
    if parts[-1]:
        out.append(parts[-1])
    return out
