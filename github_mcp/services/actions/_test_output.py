"""Test-runner output -> failing tests, counts and rerun commands.

Real parsers of what pytest, unittest, jest, vitest, `go test`, `cargo test` and
Maven Surefire print, plus JUnit XML reports. Every function here is pure and
linear in the size of its input: every regex runs on RE2 (see
`runners.linear`), and a `Budget` caps the lines and characters read, so CI
logs written by anyone who can push cannot stall the server. Odd input gives
what could be found, not an exception. Output may be a GitHub Actions job log
(timestamps, ANSI colours, CRLF) and may hold several runners, e.g. a job that
runs pytest and then jest.
"""

from __future__ import annotations

from dataclasses import dataclass

from github_mcp.services.actions.runners.base import (
    Budget,
    Runner,
    TestCounts,
    TestFailure,
    normalise_lines,
)
from github_mcp.services.actions.runners.go import GO
from github_mcp.services.actions.runners.java import MAVEN
from github_mcp.services.actions.runners.javascript import JEST, VITEST
from github_mcp.services.actions.runners.junit_xml import parse_junit_xml
from github_mcp.services.actions.runners.python import PYTEST, UNITTEST
from github_mcp.services.actions.runners.rust import CARGO

__all__ = [
    "RUNNERS",
    "Budget",
    "FailingEntry",
    "TestCounts",
    "TestFailure",
    "TestSummary",
    "detect_runner",
    "detect_runners",
    "parse_counts",
    "parse_failures",
    "parse_junit_xml",
    "rerun_command",
    "summarize",
]

RUNNERS: dict[str, Runner] = {r.name: r for r in (PYTEST, UNITTEST, JEST, VITEST, GO, CARGO, MAVEN)}
_ALIASES = {"go test": "go", "cargo test": "cargo", "surefire": "maven", "mvn": "maven"}


def _runner(name: str) -> Runner | None:
    key = name.strip().lower()
    return RUNNERS.get(_ALIASES.get(key, key))


def _detect(lines: list[str]) -> list[str]:
    found: list[str] = []
    for line in lines:
        for runner in RUNNERS.values():
            if runner.name not in found and runner.signature.search(line):
                found.append(runner.name)
        if len(found) == len(RUNNERS):
            break
    return found


def detect_runners(text: str | bytes) -> list[str]:
    """Every runner whose output appears in `text`, in order of first appearance."""
    return _detect(normalise_lines(text))


def detect_runner(text: str | bytes) -> str | None:
    """The first runner whose output appears in `text`, or None."""
    found = detect_runners(text)
    return found[0] if found else None


def _chosen(lines: list[str], runner: str | None) -> list[Runner]:
    if runner is None:
        return [RUNNERS[name] for name in _detect(lines)]
    known = _runner(runner)
    return [known] if known else []


def parse_failures(
    text: str | bytes, runner: str | None = None, *, budget: Budget | None = None
) -> list[TestFailure]:
    """Failing and erroring tests, in the order the runners reported them.

    With `runner=None` every runner detected in the text is parsed. An unknown
    runner name gives an empty list. `budget` caps what is read and records
    the cuts (see `Budget.note`).
    """
    lines = normalise_lines(text, budget)
    failures: list[TestFailure] = []
    for parser in _chosen(lines, runner):
        try:
            failures.extend(parser.failures(lines))
        except Exception:  # noqa: S112 - a parser bug must not hide the other runners' results
            continue
    return failures


def parse_counts(
    text: str | bytes, runner: str | None = None, *, budget: Budget | None = None
) -> TestCounts | None:
    """Totals from the runners' summary lines, summed over runners; None when none found."""
    lines = normalise_lines(text, budget)
    total: TestCounts | None = None
    for parser in _chosen(lines, runner):
        try:
            counts = parser.counts(lines)
        except Exception:  # noqa: S112
            continue
        if counts is not None:
            total = counts if total is None else total + counts
    return total


def rerun_command(failure: TestFailure) -> str | None:
    """A shell command that reruns just this test, quoted with `shlex.quote`."""
    parser = _runner(failure.runner or "")
    if parser is None or not failure.test:
        return None
    return parser.rerun(failure)


@dataclass
class FailingEntry:
    name: str
    message: str
    file: str | None = None
    line: int | None = None
    rerun: str | None = None


@dataclass
class TestSummary:
    """What `summarize` read: counts (None where the output shows none), the first failing
    tests, how many more there were, the runners seen, and what the parse budget left unread."""

    __test__ = False  # not a pytest test class

    passed: int | None
    failed: int | None
    errors: int | None
    skipped: int | None
    duration_s: float | None
    failing: list[FailingEntry]
    failing_omitted: int
    runners: list[str]
    note: str | None = None


def summarize(
    output: str | bytes,
    *,
    junit_xml: str | bytes | None = None,
    runner: str | None = None,
    max_failures: int = 50,
) -> TestSummary:
    """Counts and failing tests of a test run's output.

    A JUnit XML report, when given, is the source of truth; the console output is used
    otherwise.
    """
    budget = Budget()
    if junit_xml is not None:
        counts: TestCounts | None
        counts, failures = parse_junit_xml(junit_xml)
        runners = sorted({f.runner for f in failures}) or [runner or "junit"]
    else:
        lines = normalise_lines(output, budget)
        runners = [runner] if runner else _detect(lines)
        joined = "\n".join(lines)
        failures = parse_failures(joined, runner)
        counts = parse_counts(joined, runner)
    failing = [
        FailingEntry(f.test, f.message, f.file or None, f.line or None, rerun_command(f) or None)
        for f in failures[: max(0, max_failures)]
    ]
    return TestSummary(
        passed=counts.passed if counts else None,
        failed=counts.failed if counts else None,
        errors=counts.errors if counts else None,
        skipped=counts.skipped if counts else None,
        duration_s=counts.duration_s if counts else None,
        failing=failing,
        failing_omitted=max(0, len(failures) - len(failing)),
        runners=runners,
        note=budget.note() if budget.truncated else None,
    )
