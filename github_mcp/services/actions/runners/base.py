"""Shared model and text helpers for the test-runner parsers."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from github_mcp.services.actions.runners.linear import (
    LinearPattern,
    compile_linear,
    escape_js_regex,
)

# Lines longer than this are cut before any regex sees them: bounds the work per line.
MAX_LINE = 4000
# At most this many lines (the last ones) of one input are parsed.
MAX_LINES = 50_000
MESSAGE_LIMIT = 400

# CSI (colours, cursor moves), OSC (hyperlinks, titles) and two-byte escapes.
_ANSI_RE = compile_linear(
    r"\x1b(?:\[[0-?]{0,32}[ -/]{0,8}[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-Z\\-_])"
)
# GitHub Actions job logs prefix every line with an ISO timestamp and one space.
GH_TIMESTAMP_RE = compile_linear(r"^\x{feff}?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z(?: |$)")


def strip_ansi(text: str) -> str:
    return _ANSI_RE.sub("", text) if "\x1b" in text else text


def terminal_line(raw: str, limit: int = MAX_LINE) -> str:
    """What a terminal shows for one line: carriage returns overwrite, ANSI is dropped."""
    if "\r" in raw:
        parts = [p for p in raw.split("\r") if p]
        raw = parts[-1] if parts else ""
    return strip_ansi(raw[: limit * 2])[:limit]


def as_text(data: str | bytes | None) -> str:
    if data is None:
        return ""
    if isinstance(data, bytes | bytearray):
        return bytes(data).decode("utf-8", "replace")
    return str(data)


@dataclass
class Budget:
    """How much of one input the parsers read: the last `max_lines` lines (runners
    print failures and summaries at the end), each cut to `max_line_chars`
    characters. `cut_lines` and `cut_chars` record what the caps dropped."""

    max_lines: int = MAX_LINES
    max_line_chars: int = MAX_LINE
    cut_lines: int = 0
    cut_chars: int = 0

    @property
    def truncated(self) -> bool:
        return bool(self.cut_lines or self.cut_chars)

    def note(self) -> str | None:
        """A one-line truncation note, or None when the whole input was read."""
        if not self.truncated:
            return None
        parts = []
        if self.cut_lines:
            parts.append(f"the first {self.cut_lines} lines were skipped")
        if self.cut_chars:
            parts.append(f"{self.cut_chars} characters past {self.max_line_chars} per line")
        return "Output too large to parse whole: " + "; ".join(parts) + "."


def normalise_lines(text: str | bytes | None, budget: Budget | None = None) -> list[str]:
    """Split runner output into clean lines: no BOM, CR, ANSI or GitHub timestamps.

    At most the budget's last `max_lines` lines are kept, each cut to
    `max_line_chars`; the budget (a default one when None) records the cuts.
    """
    budget = budget if budget is not None else Budget()
    raws = as_text(text).lstrip("\ufeff").split("\n")
    if len(raws) > budget.max_lines:
        budget.cut_lines += len(raws) - budget.max_lines
        raws = raws[-budget.max_lines :]
    limit = budget.max_line_chars
    out = []
    for raw in raws:
        if len(raw) > limit:
            budget.cut_chars += len(raw) - limit
        line = terminal_line(raw, limit)
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


@dataclass
class TestCounts:
    __test__ = False

    passed: int = 0
    failed: int = 0
    errors: int = 0
    skipped: int = 0
    duration_s: float | None = None

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
    signature: LinearPattern
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
    return escape_js_regex(text)


def unique(failures: list[TestFailure]) -> list[TestFailure]:
    seen: set[tuple[str, str, str | None]] = set()
    out = []
    for f in failures:
        key = (f.runner, f.test, f.suite)
        if key not in seen:
            seen.add(key)
            out.append(f)
    return out
