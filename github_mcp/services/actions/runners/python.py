"""pytest and unittest output."""

from __future__ import annotations

import shlex
from typing import Any

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

# ---------------------------------------------------------------- pytest

_PYTEST_SIG = compile_linear(
    r"^=+ (?:test session starts|FAILURES|ERRORS|short test summary info) =+$"
    r"|^(?:FAILED|ERROR) \S+\.py(?:::|\s|$)"
    r"|^=+ .*\b\d+ (?:passed|failed|errors?)\b.* in [\d.]+s\b"
)
_BANNER = compile_linear(r"^=+ (.*?) =+$")
_SECTION = compile_linear(r"^_{3,} (.+?) _{3,}$")
_CAPTURED = compile_linear(r"^-{3,} .+ -{3,}$")
_E_LINE = compile_linear(r"^E(?: |$)")
_LOCATION = compile_linear(r"^(\S+?\.py):(\d+):(?: |$)")
_SUMMARY_ENTRY = compile_linear(r"^(FAILED|ERROR|XFAIL|XPASS|SKIPPED|PASSED) (\S.*)$")
_COUNTS_TAIL = compile_linear(r"\bin (\d+(?:\.\d+)?)s\b")
_COUNT_ITEM = compile_linear(
    r"(\d+) (failed|passed|skipped|errors?|xfailed|xpassed|deselected|warnings?|rerun)\b"
)
_PYTEST_COUNTS = compile_linear(
    r"^(?:=+ )?(?:\d+ \w+, )*\d+ \w+ in \d+(?:\.\d+)?s\b|^=+ no tests ran"
)


# pytest's advice about its own diff output, not about the failure.
_PYTEST_HINT = compile_linear(
    r"^\s*(?:Omitting \d+ identical items, use -vv to show|Use -v to get (?:more|the full) diff)$"
)


def pytest_message(lines: list[str]) -> str:
    return make_message(ln for ln in lines if not _PYTEST_HINT.match(ln))


def _split_entry(rest: str) -> tuple[str, str]:
    """Split 'nodeid - message' where the nodeid may hold ' - ' inside [params]."""
    depth = 0
    for i, ch in enumerate(rest):
        if ch == "[":
            depth += 1
        elif ch == "]":
            depth = max(0, depth - 1)
        elif depth == 0 and rest.startswith(" - ", i):
            return rest[:i], rest[i + 3 :]
    return rest, ""


def _section_key(title: str) -> tuple[str, str]:
    for prefix in ("ERROR at setup of ", "ERROR at teardown of ", "ERROR collecting "):
        if title.startswith(prefix):
            return "error", title[len(prefix) :]
    return "failure", title


def _nodeid_key(nodeid: str) -> str:
    """'tests/t.py::TestA::test_b[x]' -> 'TestA.test_b[x]', the section title pytest prints."""
    if "::" not in nodeid:
        return nodeid
    return ".".join(nodeid.split("::")[1:])


def _title_to_nodeid(path: str, title: str) -> str:
    head, bracket, params = title.partition("[")
    return f"{path}::{head.replace('.', '::')}{bracket}{params}"


class _Section:
    def __init__(self, kind: str, key: str) -> None:
        self.kind, self.key = kind, key
        self.e_lines: list[str] = []
        self.locations: list[tuple[str, int]] = []
        self.captured = False


def _pytest_sections(lines: list[str]) -> list[_Section]:
    sections: list[_Section] = []
    in_reports = False
    current: _Section | None = None
    for line in lines:
        banner = _BANNER.match(line)
        if banner:
            in_reports = banner.group(1) in ("FAILURES", "ERRORS")
            current = None
            continue
        if not in_reports:
            continue
        head = _SECTION.match(line)
        if head:
            current = _Section(*_section_key(head.group(1)))
            sections.append(current)
            continue
        if current is None:
            continue
        if _CAPTURED.match(line):
            current.captured = True
        elif current.captured:
            continue
        elif _E_LINE.match(line):
            current.e_lines.append(line[1:])
        else:
            loc = _LOCATION.match(line)
            if loc:
                current.locations.append((loc.group(1), to_int(loc.group(2))))
    return sections


def _location(section: _Section | None, path: str | None) -> tuple[str | None, int | None]:
    if section is None or not section.locations:
        return path, None
    if path is None and section.kind == "error" and section.key.endswith(".py"):
        path = section.key
    if path is None:
        relative = [p for p, _ in section.locations if not p.startswith("/")]
        path = relative[0] if relative else section.locations[0][0]
    lines = [ln for p, ln in section.locations if p == path]
    return path, (lines[-1] if lines else None)


def pytest_failures(lines: list[str]) -> list[TestFailure]:
    sections = _pytest_sections(lines)
    by_key = {(s.kind, s.key): s for s in sections}
    out: list[TestFailure] = []
    used: set[tuple[str, str]] = set()
    for status, nodeid, msg_lines in _summary_entries(lines):
        if status not in ("FAILED", "ERROR"):
            continue
        kind = "failure" if status == "FAILED" else "error"
        key = (kind, _nodeid_key(nodeid))
        used.add(key)
        out.append(_summary_failure(nodeid, msg_lines, by_key.get(key)))
    out.extend(_section_failure(s) for s in sections if (s.kind, s.key) not in used)
    return unique(out)


def _summary_entries(lines: list[str]) -> list[tuple[str, str, list[str]]]:
    """The "short test summary info" lines as (status, nodeid, message lines)."""
    entries: list[tuple[str, str, list[str]]] = []
    in_summary = False
    for line in lines:
        banner = _BANNER.match(line)
        if banner:
            in_summary = banner.group(1) == "short test summary info"
            continue
        if not in_summary:
            continue
        entry = _SUMMARY_ENTRY.match(line)
        if entry:
            nodeid, msg = _split_entry(entry.group(2))
            entries.append((entry.group(1), nodeid, [msg] if msg else []))
        elif _PYTEST_COUNTS.match(line) or line.startswith("!!!"):
            in_summary = False
        elif entries and entries[-1][0] in ("FAILED", "ERROR"):
            entries[-1][2].append(line)
    return entries


def _summary_failure(nodeid: str, msg_lines: list[str], section: _Section | None) -> TestFailure:
    """A summary entry, located and explained by its section when there is one."""
    file, line_no = _location(section, nodeid.split("::")[0])
    body = section.e_lines if section and section.e_lines else msg_lines
    if not section and msg_lines and msg_lines[0].endswith("..."):
        body = [msg_lines[0][:-3]]
    return TestFailure(nodeid, pytest_message(body), "pytest", file, line_no)


def _section_failure(section: _Section) -> TestFailure:
    """A failure section the summary did not list (a collection error, a -rN run)."""
    file, line_no = _location(section, None)
    if section.key.endswith(".py") and section.kind == "error":
        test = section.key
    else:
        test = _title_to_nodeid(file, section.key) if file else section.key
    return TestFailure(test, pytest_message(section.e_lines), "pytest", file, line_no)


def pytest_counts(lines: list[str]) -> TestCounts | None:
    total: TestCounts | None = None
    for line in lines:
        if not _PYTEST_COUNTS.match(line):
            continue
        c = TestCounts()
        for num, word in _COUNT_ITEM.findall(line):
            n = int(num)
            if word in ("passed", "xpassed"):
                c.passed += n
            elif word == "failed":
                c.failed += n
            elif word.startswith("error"):
                c.errors += n
            elif word in ("skipped", "xfailed"):
                c.skipped += n
        tail = _COUNTS_TAIL.search(line)
        c.duration_s = seconds(tail.group(1), "s") if tail else None
        total = c if total is None else total + c
    return total


def pytest_rerun(failure: TestFailure) -> str | None:
    return f"pytest {shlex.quote(failure.test)}" if failure.test else None


PYTEST = Runner("pytest", _PYTEST_SIG, pytest_failures, pytest_counts, pytest_rerun)

# -------------------------------------------------------------- unittest

_UT_SIG = compile_linear(r"^Ran \d+ tests? in [\d.]+s$|^(?:FAIL|ERROR): \w+ \([\w.]+\)")
_UT_HEADER = compile_linear(
    r"^(FAIL|ERROR|UNEXPECTED SUCCESS): (\w+) \(([\w.]+)\)(?: \((.*)\))?\s*$"
)
_UT_FRAME = compile_linear(r'^  File "([^"]+)", line (\d+), in (\S+)')
_UT_RAN = compile_linear(r"^Ran (\d+) tests? in (\d+(?:\.\d+)?)s$")
_UT_RESULT = compile_linear(r"^(FAILED|OK)(?: \((.*)\))?$")
_UT_RESULT_FIELD = compile_linear(r"([a-z][a-z ]*)=(\d+)")
_UT_RULE = compile_linear(r"^(?:={20,}|-{20,})$")


def _unittest_id(method: str, where: str) -> str:
    # 3.11+ prints 'test_x (pkg.mod.Class.test_x)'; older ones 'test_x (pkg.mod.Class)'.
    return where if where.endswith("." + method) else f"{where}.{method}"


def _unittest_block(test: str, method: str, body: list[str]) -> TestFailure:
    frames: list[tuple[str, int, str]] = []
    exc: list[str] = []
    for line in body:
        if line.startswith("Traceback (most recent call last):"):
            exc = []
            continue
        frame = _UT_FRAME.match(line)
        if frame:
            frames.append((frame.group(1), to_int(frame.group(2)), frame.group(3)))
            exc = []
        elif exc or (line and not line.startswith(" ")):
            exc.append(line)
    own = [f for f in frames if f[2] == method] or frames
    file, line_no = (own[-1][0], own[-1][1]) if own else (None, None)
    while exc and not exc[-1].strip():
        exc.pop()
    if exc and exc[-1].startswith("During handling of the above exception"):
        exc.pop()
    return TestFailure(test, make_message(exc), "unittest", file, line_no)


def unittest_failures(lines: list[str]) -> list[TestFailure]:
    out: list[TestFailure] = []
    header: Any | None = None
    body: list[str] = []
    started = False

    def flush() -> None:
        if header is None:
            return
        kind, method, where, params = header.groups()
        test = _unittest_id(method, where) + (f" ({params})" if params else "")
        failure = _unittest_block(test, method, body)
        if kind == "UNEXPECTED SUCCESS":
            failure.message = failure.message or "unexpected success"
        out.append(failure)

    for line in lines:
        match = _UT_HEADER.match(line)
        if match:
            flush()
            header, body, started = match, [], False
        elif header is None:
            continue
        elif _UT_RULE.match(line):
            if started:
                flush()
                header = None
            started = True
        elif _UT_RAN.match(line):
            flush()
            header = None
        else:
            body.append(line)
    flush()
    return unique(out)


def unittest_counts(lines: list[str]) -> TestCounts | None:
    total: TestCounts | None = None
    ran: tuple[int, float | None] | None = None
    for line in lines:
        match = _UT_RAN.match(line)
        if match:
            ran = (int(match.group(1)), seconds(match.group(2), "s"))
            continue
        result = _UT_RESULT.match(line)
        if not result or ran is None:
            continue
        pairs = _UT_RESULT_FIELD.findall(result.group(2) or "")
        fields = {key.strip(): value for key, value in pairs}
        failed = to_int(fields.get("failures")) + to_int(fields.get("unexpected successes"))
        errors = to_int(fields.get("errors"))
        skipped = to_int(fields.get("skipped")) + to_int(fields.get("expected failures"))
        passed = max(0, ran[0] - failed - errors - skipped)
        c = TestCounts(passed, failed, errors, skipped, ran[1])
        total = c if total is None else total + c
        ran = None
    return total


def unittest_rerun(failure: TestFailure) -> str | None:
    test_id = failure.test.split(" ", 1)[0]
    return f"python -m unittest {shlex.quote(test_id)}" if test_id else None


UNITTEST = Runner("unittest", _UT_SIG, unittest_failures, unittest_counts, unittest_rerun)
