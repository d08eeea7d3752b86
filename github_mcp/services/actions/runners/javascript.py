"""Jest and Vitest output."""

from __future__ import annotations

import shlex
from typing import Any

from github_mcp.services.actions.runners.base import (
    Runner,
    TestCounts,
    TestFailure,
    js_regex_escape,
    make_message,
    seconds,
    unique,
)
from github_mcp.services.actions.runners.linear import LinearPattern, compile_linear

_JS_FILE = r"\S+?\.(?:c|m)?[jt]sx?"
# `at fn (file:1:2)` (jest) and `❯ fn file:1:2` (vitest) stack frames.
_JEST_FRAME = compile_linear(r"^\s*at (?:.*?\()?(\S+?):(\d+):\d+\)?$")
_VITEST_FRAME = compile_linear(r"^\s*❯ (?:\S+ )?(\S+?):(\d+):\d+$")
_CODE_FRAME = compile_linear(r"^\s*>?\s*\d*\s?\|")
_COUNT_ITEM = compile_linear(r"(\d+) (\w+)")


def _last_frame_in(frames: list[tuple[str, int]], file: str | None) -> int | None:
    own = [line for path, line in frames if file and (path == file or path.endswith("/" + file))]
    return own[-1] if own else None


def _block(
    test: str, file: str | None, body: list[str], frame_re: LinearPattern, runner: str
) -> TestFailure:
    frames: list[tuple[str, int]] = []
    text: list[str] = []
    for line in body:
        frame = frame_re.match(line)
        if frame:
            frames.append((frame.group(1), int(frame.group(2))))
        elif not _CODE_FRAME.match(line):
            text.append(line)
    return TestFailure(test, make_message(text), runner, file, _last_frame_in(frames, file))


def _name_pattern(test: str, separator: str) -> str:
    return "^" + js_regex_escape(" ".join(test.split(separator))) + "$"


# ------------------------------------------------------------------ jest

_JEST_SIG = compile_linear(r"^Tests:\s+\d+ |^Test Suites:\s+\d+ |^\s*● .+ › ")
_JEST_SUITE = compile_linear(rf"^\s*(?:FAIL|PASS)\s+({_JS_FILE})(?:\s+\([\d.]+ m?s\))?$")
_JEST_HEAD = compile_linear(r"^\s*● (.+?)\s*$")
_JEST_END = compile_linear(
    r"^(?:Tests|Test Suites|Snapshots|Time):\s|^Summary of all failing tests$"
)
_JEST_TIME = compile_linear(r"Time:\s+([\d.]+)\s*(ms|s|m)\b")
_SUITE_ERROR = "Test suite failed to run"


def jest_failures(lines: list[str]) -> list[TestFailure]:
    out: list[TestFailure] = []
    suite: str | None = None
    head: str | None = None
    body: list[str] = []

    def flush() -> None:
        if head is None or head.startswith("Console"):
            return
        name = suite if head == _SUITE_ERROR and suite else head
        out.append(_block(name, suite, body, _JEST_FRAME, "jest"))

    for line in lines:
        suite_line = _JEST_SUITE.match(line)
        head_line = _JEST_HEAD.match(line)
        if suite_line or head_line or _JEST_END.match(line):
            flush()
            head, body = None, []
            if suite_line:
                suite = suite_line.group(1)
            elif head_line:
                head = head_line.group(1)
        elif head is not None:
            body.append(line)
    flush()
    return unique(out)


def jest_counts(lines: list[str]) -> TestCounts | None:
    counts: TestCounts | None = None
    for line in lines:
        if line.startswith("Tests:"):
            items = dict((w, int(n)) for n, w in _COUNT_ITEM.findall(line))
            counts = TestCounts(
                items.get("passed", 0),
                items.get("failed", 0),
                0,
                items.get("skipped", 0) + items.get("todo", 0),
            )
        elif line.startswith("Time:") and counts is not None:
            time = _JEST_TIME.match(line)
            counts.duration_s = seconds(*time.groups()) if time else None
    if counts is not None:
        counts.errors = sum(1 for f in jest_failures(lines) if f.test == f.file)
    return counts


def jest_rerun(failure: TestFailure) -> str | None:
    parts = ["npx", "jest"]
    if failure.file:
        parts.append(shlex.quote(failure.file))
    if failure.test != failure.file:
        parts += ["-t", shlex.quote(_name_pattern(failure.test, " › "))]
    return " ".join(parts)


JEST = Runner("jest", _JEST_SIG, jest_failures, jest_counts, jest_rerun)

# ---------------------------------------------------------------- vitest

_VITEST_SIG = compile_linear(
    r"^\s*RUN\s+v\d+\.\d+|^\s*Test Files\s+\d+ |^\s*Tests\s+\d+ (?:failed|passed)"
    r"|⎯ Failed (?:Tests|Suites) \d+ ⎯"
)
_VITEST_FAIL = compile_linear(rf"^\s*FAIL\s+({_JS_FILE})(?: > (.+?)| \[ .* \])?\s*$")
_VITEST_RULE = compile_linear(r"^\s*⎯{3,}")
_VITEST_FILE = compile_linear(rf"^\s*[❯✓×✗]\s+({_JS_FILE}) \(\d+ tests?\b")
_VITEST_TREE_FAIL = compile_linear(r"^\s*[×✗] (.+?)(?: \d+(?:\.\d+)?m?s)?$")
_VITEST_ARROW = compile_linear(r"^\s*→ (.+)$")
_VITEST_TESTS = compile_linear(r"^\s*Tests\s{2,}(.*)\(\d+\)\s*$")
_VITEST_ERRORS = compile_linear(r"^\s*Errors\s{2,}(\d+) errors?")
_VITEST_DURATION = compile_linear(r"^\s*Duration\s{2,}([\d.]+)(ms|s|m)\b")
_VITEST_END = compile_linear(r"^\s*(?:Test Files|Tests|Errors|Start at|Duration)\s{2,}")


def _vitest_tree(lines: list[str]) -> list[TestFailure]:
    """The `× name` lines of the summary tree, for logs cut before the detailed blocks."""
    out: list[TestFailure] = []
    file: str | None = None
    for line in lines:
        file_line = _VITEST_FILE.match(line)
        if file_line:
            file = file_line.group(1)
            continue
        fail = _VITEST_TREE_FAIL.match(line)
        if fail and file:
            out.append(TestFailure(fail.group(1), "", "vitest", file))
            continue
        arrow = _VITEST_ARROW.match(line)
        if arrow and out and not out[-1].message:
            out[-1].message = make_message([arrow.group(1)])
    return out


def vitest_failures(lines: list[str]) -> list[TestFailure]:
    out: list[TestFailure] = []
    head: Any | None = None
    body: list[str] = []

    def flush() -> None:
        if head is None:
            return
        file, name = head.group(1), head.group(2)
        out.append(_block(name or file, file, body, _VITEST_FRAME, "vitest"))

    for line in lines:
        fail = _VITEST_FAIL.match(line)
        if fail or _VITEST_RULE.match(line) or _VITEST_END.match(line):
            flush()
            head, body = fail, []
        elif head is not None:
            body.append(line)
    flush()
    if not out:
        return unique(_vitest_tree(lines))
    return unique(out)


def vitest_counts(lines: list[str]) -> TestCounts | None:
    counts: TestCounts | None = None
    errors = 0
    for line in lines:
        tests = _VITEST_TESTS.match(line)
        if tests:
            items = dict((w, int(n)) for n, w in _COUNT_ITEM.findall(tests.group(1)))
            counts = TestCounts(
                items.get("passed", 0),
                items.get("failed", 0),
                0,
                items.get("skipped", 0) + items.get("todo", 0),
            )
            continue
        err = _VITEST_ERRORS.match(line)
        if err:
            errors += int(err.group(1))
            continue
        duration = _VITEST_DURATION.match(line)
        if duration and counts is not None:
            counts.duration_s = seconds(*duration.groups())
    if counts is not None:
        suites = sum(1 for f in vitest_failures(lines) if f.test == f.file)
        counts.errors = errors + suites
    return counts


def vitest_rerun(failure: TestFailure) -> str | None:
    parts = ["npx", "vitest", "run"]
    if failure.file:
        parts.append(shlex.quote(failure.file))
    if failure.test != failure.file:
        parts += ["-t", shlex.quote(_name_pattern(failure.test, " > "))]
    return " ".join(parts)


VITEST = Runner("vitest", _VITEST_SIG, vitest_failures, vitest_counts, vitest_rerun)
