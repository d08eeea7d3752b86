"""Maven Surefire (3.x) console output for JUnit tests."""

from __future__ import annotations

import shlex

from github_mcp.services.actions.runners.base import (
    Runner,
    TestCounts,
    TestFailure,
    make_message,
    seconds,
    to_int,
    unique,
)
from github_mcp.services.actions.runners.linear import compile_linear

_SIG = compile_linear(
    r"^\[(?:INFO|ERROR|WARNING)\] Tests run: \d+, Failures: \d+|^\[INFO\]  T E S T S$"
)
_BLOCK = compile_linear(
    r"^\[(?:ERROR|WARNING)\] (\S.*?) -- Time elapsed: [\d.]+ s <<< (?:FAILURE|ERROR)!$"
)
_FRAME = compile_linear(r"^\s+at ([\w.$]+)\.([\w$<>]+)\(([\w$.-]+):(\d+)\)$")
_TALLY = compile_linear(
    r"^\[(?:INFO|ERROR|WARNING)\] Tests run: (\d+), Failures: (\d+), Errors: (\d+), Skipped: (\d+)"
    r"(?:, Flakes: \d+)?(?:, Time elapsed: ([\d.]+) s)?"
)
_RESULTS_HEAD = compile_linear(r"^\[(?:ERROR|WARNING)\] (Failures|Errors|Flakes): ?$")
_RESULTS_ENTRY = compile_linear(r"^\[(?:ERROR|WARNING)\]   (\S+?)(?::(\d+))?(?: (.*))?$")


_QUALIFIED = compile_linear(r"^(?:[a-z_$][\w$]*\.)+([A-Z][\w$]*)(:|$)")
_PARAMS = compile_linear(r"[(\[]")


def java_message(lines: list[str]) -> str:
    """Exception lines without the package of the exception class."""
    lines = [ln for ln in lines if ln.strip()]
    if lines:
        lines[0] = _QUALIFIED.sub(r"\1\2", lines[0].strip())
    return make_message(lines)


def _split_test(name: str) -> tuple[str, str]:
    """'com.example.OrderTest.totals(int)[1]' -> ('com.example.OrderTest', 'totals')."""
    base = _PARAMS.split(name, maxsplit=1)[0]
    cls, _, method = base.rpartition(".")
    return cls, method


def _simple(name: str) -> str:
    cls, method = _split_test(name)
    return f"{cls.rpartition('.')[2]}.{method}"


def _from_block(name: str, body: list[str]) -> TestFailure:
    cls, method = _split_test(name)
    message: list[str] = []
    frames: list[tuple[str, str, str, int]] = []
    for text in body:
        frame = _FRAME.match(text)
        if frame:
            frames.append((frame.group(1), frame.group(2), frame.group(3), int(frame.group(4))))
        elif not frames:
            message.append(text)
    own = [f for f in frames if f[0] == cls and f[1] == method] or [
        f for f in frames if f[0] == cls
    ]
    file = line = None
    if own:
        package = cls.rpartition(".")[0]
        file = f"{package.replace('.', '/')}/{own[0][2]}" if package else own[0][2]
        line = own[0][3]
    return TestFailure(name, java_message(message), "maven", file, line, cls)


def maven_failures(lines: list[str]) -> list[TestFailure]:
    out, summary = _scan_maven(lines)
    known = {_simple(f.test): f for f in out}
    for name, line, message in summary:
        found = known.get(name)
        if found is None:
            cls, _ = _split_test(name)
            out.append(TestFailure(name, make_message(message), "maven", None, line, cls))
        elif found.line is None:
            found.line = line
    return unique(out)


_Summary = list[tuple[str, int | None, list[str]]]


def _scan_maven(lines: list[str]) -> tuple[list[TestFailure], _Summary]:
    """Failure blocks as parsed failures, and the "Results:" list as (test, line, message)."""
    out: list[TestFailure] = []
    summary: _Summary = []
    block: str | None = None
    body: list[str] = []
    in_results = False
    for text in lines:
        prefixed = text.startswith("[")
        if block is not None and prefixed:
            out.append(_from_block(block, body))
            block = None
        head = _BLOCK.match(text)
        if head:
            block, body, in_results = head.group(1), [], False
        elif block is not None:
            body.append(text)
        elif _RESULTS_HEAD.match(text):
            in_results = True
        elif in_results:
            in_results = _results_line(text, prefixed, summary)
    if block is not None:
        out.append(_from_block(block, body))
    return out, summary


def _results_line(text: str, prefixed: bool, summary: _Summary) -> bool:
    """Add one line of the "Results:" list to summary; False when the list has ended."""
    entry = _RESULTS_ENTRY.match(text)
    if entry:
        summary.append((entry.group(1), to_int(entry.group(2), 0) or None, [entry.group(3) or ""]))
    elif prefixed:
        return False
    elif summary:
        summary[-1][2].append(text)
    return True


def maven_counts(lines: list[str]) -> TestCounts | None:
    totals: TestCounts | None = None
    per_class: TestCounts | None = None
    for text in lines:
        tally = _TALLY.match(text)
        if not tally:
            continue
        run, failed, errors, skipped = (int(g) for g in tally.groups()[:4])
        c = TestCounts(max(0, run - failed - errors - skipped), failed, errors, skipped)
        if tally.group(5) is not None:
            c.duration_s = seconds(tally.group(5), "s")
            per_class = c if per_class is None else per_class + c
        else:
            totals = c if totals is None else totals + c
    if totals is None:
        return per_class
    if per_class is not None:
        totals.duration_s = per_class.duration_s
    return totals


def maven_rerun(failure: TestFailure) -> str | None:
    cls, method = _split_test(failure.test)
    if not cls:
        return None
    selector = f"{cls}#{method}" if method else cls
    return f"mvn -Dtest={shlex.quote(selector)} test"


MAVEN = Runner("maven", _SIG, maven_failures, maven_counts, maven_rerun)
