"""Shared model and text helpers for the test-runner parsers."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from typing import Any

# Lines longer than this are cut before any regex sees them: bounds the work per line.
MAX_LINE = 4000
MESSAGE_LIMIT = 400

# CSI (colours, cursor moves), OSC (hyperlinks, titles) and two-byte escapes.
_ANSI_RE = re.compile(
    r"\x1b(?:\[[0-?]{0,32}[ -/]{0,8}[@-~]|\][^\x07\x1b]{0,2048}(?:\x07|\x1b\\)?|[@-Z\\-_])"
)
# GitHub Actions job logs prefix every line with an ISO timestamp and one space.
GH_TIMESTAMP_RE = re.compile(r"^\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z(?: |$)")


def strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text) if "\x1b" in text else text


def terminal_line(raw: str) -> str:
    """What a terminal shows for one line: carriage returns overwrite, ANSI is dropped."""
    if "\r" in raw:
        parts = [p for p in raw.split("\r") if p]
        raw = parts[-1] if parts else ""
    return strip_ansi(raw[: MAX_LINE * 2])[:MAX_LINE]


def as_text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes | bytearray):
        return bytes(data).decode("utf-8", "replace")
    return str(data)


def normalise_lines(text: str | bytes | None) -> list[str]:
    """Split runner output into clean lines: no BOM, CR, ANSI or GitHub timestamps."""
    out = []
    for raw in as_text(text).lstrip("\ufeff").split("\n"):
        line = terminal_line(raw)
        if line[:1].isdigit():
            line = GH_TIMESTAMP_RE.sub("", line, count=1)
        out.append(line.rstrip())
    return out


@dataclass
class TestFailure:
    """One failing (or erroring) test.

    `suite` is the runner's grouping needed to rerun the test alone: the Go
    package, the cargo test target source, or the Java class.
    """

    __test__ = False  # not a pytest test class

    test: str
    message: str
    runner: str
    file: str | None = None
    line: int | None = None
    suite: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {k: v for k, v in asdict(self).items() if v is not None}


@dataclass
class TestCounts:
    __test__ = False

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    duration_s: float | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def __add__(self, other: TestCounts) -> TestCounts:
        if self.duration_s is None and other.duration_s is None:
            duration = None
        else:
            duration = round((self.duration_s or 0.0) + (other.duration_s or 0.0), 3)
        return TestCounts(
            self.passed + other.passed,
            self.failed + other.failed,
            self.errors + other.errors,
            self.skipped + other.skipped,
            duration,
        )


@dataclass(frozen=True)
class Runner:
    """A runner's parser: `signature` matches lines only that runner prints."""

    name: str
    signature: re.Pattern[str]
    failures: Callable[[list[str]], list[TestFailure]]
    counts: Callable[[list[str]], TestCounts | None]
    rerun: Callable[[TestFailure], str | None]


def dedent(lines: Iterable[str]) -> list[str]:
    lines = list(lines)
    widths = [len(ln) - len(ln.lstrip()) for ln in lines if ln.strip()]
    cut = min(widths, default=0)
    return [ln[cut:] for ln in lines]


def make_message(lines: Iterable[str], limit: int = MESSAGE_LIMIT) -> str:
    """Join message lines compactly: dedented, no blank lines, at most `limit` chars."""
    kept = [ln.rstrip() for ln in dedent(lines) if ln.strip()]
    text = "\n".join(kept)
    if len(text) > limit:
        text = text[: limit - 1].rstrip() + "…"
    return text


def to_int(value: str | None, default: int = 0) -> int:
    try:
        return int(value) if value is not None else default
    except ValueError:
        return default


def to_float(value: str | None) -> float | None:
    try:
        return float(value) if value is not None else None
    except ValueError:
        return None


def seconds(amount: str, unit: str) -> float | None:
    """Convert '472' 'ms' / '1.5' 's' / '2' 'm' to seconds."""
    value = to_float(amount)
    if value is None:
        return None
    factor = {"ms": 0.001, "s": 1.0, "sec": 1.0, "m": 60.0, "min": 60.0, "h": 3600.0}
    return round(value * factor.get(unit.strip().lower(), 1.0), 3)


def js_regex_escape(text: str) -> str:
    return re.sub(r"[.*+?^${}()|\[\]\\/]", r"\\\g<0>", text)


def unique(failures: list[TestFailure]) -> list[TestFailure]:
    seen: set[tuple[str, str, str | None]] = set()
    out = []
    for f in failures:
        key = (f.runner, f.test, f.suite)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
