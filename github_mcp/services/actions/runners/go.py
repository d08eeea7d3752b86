"""`go test` output, with and without -v."""

from __future__ import annotations

import re
import shlex

from github_mcp.services.actions.runners.base import (
    Runner,
    TestCounts,
    TestFailure,
    make_message,
    seconds,
    unique,
)
from github_mcp.services.actions.runners.linear import compile_linear

_SIG = compile_linear(
    r"^\s*--- (?:FAIL|PASS|SKIP): \S+ \([\d.]+s\)$|^=== RUN\s+\S+"
    r"|^(?:ok|FAIL)\s+\S+\s+(?:[\d.]+s|\(cached\)|\[build failed\]|\[setup failed\])"
)
_RESULT = compile_linear(r"^(\s*)--- (FAIL|PASS|SKIP): (\S+) \(([\d.]+)s\)$")
_MARKER = compile_linear(r"^=== (?:RUN|CONT|NAME|PAUSE)\s+(\S+)$")
_PACKAGE = compile_linear(r"^(ok|FAIL)\s+(\S+)\s+(?:([\d.]+)s|\(cached\)|\[(build|setup) failed\])")
_OUTPUT = compile_linear(r"^\s+(\w[\w.-]*\.go):(\d+): ?(.*)$")
_BUILD_ERROR = compile_linear(r"^(\S+\.go):(\d+):(?:\d+:)? (.*)$")


class _Test:
    def __init__(self, name: str) -> None:
        self.name = name
        self.lines: list[str] = []
        self.status: str | None = None
        self.package: str | None = None


class _Scan:
    """State of one pass over a `go test` log."""

    def __init__(self) -> None:
        self.tests: dict[str, _Test] = {}
        self.order: list[_Test] = []
        self.pending: list[_Test] = []  # results not yet tied to a package line
        self.builds: list[TestFailure] = []
        self.build_lines: list[str] = []
        self.duration: float | None = None
        self.current: _Test | None = None  # -v: where streamed output goes
        self.after_result: tuple[_Test, int] | None = None  # non -v: indented under `--- FAIL`

    def test(self, name: str) -> _Test:
        if name not in self.tests:
            self.tests[name] = _Test(name)
            self.order.append(self.tests[name])
        return self.tests[name]

    def line(self, line: str) -> None:
        marker = _MARKER.match(line)
        result = _RESULT.match(line)
        package = _PACKAGE.match(line)
        if marker:
            self.current, self.after_result = self.test(marker.group(1)), None
        elif result:
            self.result(result)
        elif package:
            self.package(package)
        else:
            self.output(line)

    def result(self, result: re.Match[str]) -> None:
        t = self.test(result.group(3))
        t.status = result.group(2)
        self.pending.append(t)
        self.after_result = (t, len(result.group(1)))
        self.current = None

    def package(self, package: re.Match[str]) -> None:
        name, secs, broke = package.group(2, 3, 4)
        for t in self.pending:
            t.package = name
        self.pending = []
        if secs:
            self.duration = (self.duration or 0.0) + (seconds(secs, "s") or 0.0)
        if broke:
            self.builds.append(_build_failure(name, broke, self.build_lines))
        self.build_lines, self.current, self.after_result = [], None, None

    def output(self, line: str) -> None:
        after = self.after_result
        if after and line.startswith(" " * (after[1] + 4)):
            after[0].lines.append(line[after[1] :])
        elif after and line.startswith("panic: "):
            after[0].lines.append(line)
            self.after_result = None
        elif self.current is not None and line.startswith("    "):
            self.current.lines.append(line)
        else:
            self.after_result = None
            if line.startswith("# ") or _BUILD_ERROR.match(line):
                self.build_lines.append(line)


def _scan(lines: list[str]) -> tuple[list[_Test], list[TestFailure], float | None]:
    """Walk the log once: per-test output and status, build failures, package time."""
    scan = _Scan()
    for line in lines:
        scan.line(line)
    return scan.order, scan.builds, scan.duration


def _build_failure(package: str, what: str, lines: list[str]) -> TestFailure:
    errors = [ln for ln in lines if not ln.startswith("# ")]
    first = _BUILD_ERROR.match(errors[0]) if errors else None
    message = make_message(errors) or f"{what} failed"
    file, line = (first.group(1), int(first.group(2))) if first else (None, None)
    return TestFailure(package, message, "go", file, line, package)


def _leaves(tests: list[_Test]) -> list[_Test]:
    """Drop parents whose outcome is only that of their subtests."""
    # go reports every level of a subtest tree, so immediate parents are enough.
    parents = {t.name.rpartition("/")[0] for t in tests if t.status and "/" in t.name}
    return [t for t in tests if t.status and (t.name not in parents or _own_message(t))]


def _own_message(t: _Test) -> list[str]:
    return [ln for ln in t.lines if ln.strip() and not _RESULT.match(ln)]


def go_failures(lines: list[str]) -> list[TestFailure]:
    tests, builds, _ = _scan(lines)
    out = []
    for t in _leaves(tests):
        if t.status != "FAIL":
            continue
        body = _own_message(t)
        file = line = None
        text: list[str] = []
        for ln in body:
            loc = _OUTPUT.match(ln)
            if loc:
                if file is None:
                    file, line = loc.group(1), int(loc.group(2))
                text.append(" " * (len(ln) - len(ln.lstrip())) + loc.group(3))
            else:
                text.append(ln)
        out.append(TestFailure(t.name, make_message(text), "go", file, line, t.package))
    return unique(out + builds)


def go_counts(lines: list[str]) -> TestCounts | None:
    tests, builds, duration = _scan(lines)
    if not tests and not builds:
        return None
    counts = TestCounts(errors=len(builds), duration_s=duration)
    for t in _leaves(tests):
        if t.status == "PASS":
            counts.passed += 1
        elif t.status == "FAIL":
            counts.failed += 1
        elif t.status == "SKIP":
            counts.skipped += 1
    return counts


def _go_run_pattern(name: str) -> str:
    return "/".join(f"^{re.escape(part)}$" for part in name.split("/"))


def go_rerun(failure: TestFailure) -> str | None:
    target = failure.suite or "./..."
    if failure.test == failure.suite:  # a package that did not build
        return f"go test {shlex.quote(target)}"
    return f"go test -run {shlex.quote(_go_run_pattern(failure.test))} {shlex.quote(target)}"


GO = Runner("go", _SIG, go_failures, go_counts, go_rerun)
