"""GitHub Actions job-log cleaning and bounded excerpts.

The `*.gh.txt` fixtures are real runner output wrapped in GitHub's job-log
format by tests/fixtures/make_runner_logs.py.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.actions._joblogs import (
    MAX_GREP_LINE,
    MAX_LINE_CHARS,
    clean_log,
    compile_grep,
    select,
    split_steps,
)

LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "runner_logs"
TIMESTAMP = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z")


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def assert_invalid(excinfo: pytest.ExceptionInfo[GitHubMCPError]) -> None:
    assert excinfo.value.code is ErrorCode.INVALID_INPUT
    assert excinfo.value.envelope()["error"]["code"] == "invalid_input"


@pytest.mark.parametrize("name", ["pytest.gh.txt", "jest.gh.txt", "cargo.gh.txt", "maven.gh.txt"])
def test_clean_log_strips_github_noise(name: str) -> None:
    raw = log(name)
    assert TIMESTAMP.search(raw) and "\x1b[" in raw and raw.startswith("\ufeff")
    lines = clean_log(raw)
    text = "\n".join(lines)
    assert not TIMESTAMP.search(text)
    assert "\x1b" not in text and "\ufeff" not in text and "\r" not in text
    assert "##[" not in text
    assert lines[0] == "Current runner version: '2.321.0'"
    assert "## Run actions/checkout@v4" in lines
    assert lines[-1] == "Cleaning up orphan processes"
    assert any(
        re.fullmatch(r"error: Process completed with exit code [1-9]\d*\.", ln) for ln in lines
    )
    # the step header keeps its title; the echoed script, shell and env block go
    assert "env:" not in lines
    assert not any(ln.startswith("shell: /usr/bin/bash") for ln in lines)
    assert not any(
        re.match(r"  (FORCE_COLOR|RUST_BACKTRACE|CARGO_TERM_COLOR): ", ln) for ln in lines
    )
    header = next(i for i, ln in enumerate(lines) if ln.startswith("## Run ") and "@v4" not in ln)
    assert lines[header + 1] != lines[header].removeprefix("## Run ")


def test_clean_log_keeps_the_runner_output_verbatim() -> None:
    lines = clean_log(log("jest.gh.txt"))
    start = lines.index("## Run npx jest") + 1
    end = lines.index("error: Process completed with exit code 1.")
    output = lines[start:end]
    assert output[0] == " FAIL  src/__tests__/cart.test.js"
    assert "  ● cart › adds an item" in output
    assert output[-1] == "Ran all test suites."


def test_clean_log_normalises_annotations() -> None:
    raw = (
        "\ufeff2024-01-01T12:00:00.1234567Z ##[group]Run make\r\n"
        "2024-01-01T12:00:00.1234568Z make\r\n"
        "2024-01-01T12:00:00.1234569Z ##[endgroup]\r\n"
        "2024-01-01T12:00:01.0000000Z ##[warning]Node 16 is deprecated\r\n"
        "2024-01-01T12:00:01.0000001Z ##[notice]cache hit\r\n"
        "2024-01-01T12:00:01.0000002Z progress 10%\rprogress 100%\r\n"
        "2024-01-01T12:00:01.0000003Z ::error file=a.py,line=3::bad thing\r\n"
        "2024-01-01T12:00:01.0000004Z ##[unknown]kept as is\r\n"
        "2024-01-01T12:00:01.0000005Z ::std::vector<int> v;\r\n"
        "2024-01-01T12:00:02.0000000Z ##[error]Process completed with exit code 2.\r\n"
    )
    assert clean_log(raw) == [
        "## Run make",
        "warning: Node 16 is deprecated",
        "notice: cache hit",
        "progress 100%",
        "error: bad thing",
        "##[unknown]kept as is",
        "::std::vector<int> v;",
        "error: Process completed with exit code 2.",
    ]
    assert clean_log(raw.encode()) == clean_log(raw)


def test_split_steps_on_a_two_step_job() -> None:
    raw = log("mixed.gh.txt")
    steps = split_steps(raw)
    assert [(s.name, s.failed) for s in steps] == [
        ("Set up job", False),
        ("Run actions/checkout@v4", False),
        ("Run pytest", True),
        ("Run npx jest", True),
        ("Post job cleanup", False),
    ]
    assert [ln for s in steps for ln in s.lines] == clean_log(raw)
    assert steps[2].lines[0] == "## Run pytest"
    assert steps[2].lines[-1] == "error: Process completed with exit code 1."
    assert "Tests:       3 failed, 1 skipped, 2 passed, 6 total" in steps[3].lines


def test_split_steps_without_github_markers() -> None:
    [step] = split_steps(log("go.txt"))
    assert (step.name, step.failed) == ("log", False)
    assert step.lines[0] == "--- FAIL: TestDiscountRounding (0.00s)"
    assert split_steps("") == []


def test_select_failed_steps_only() -> None:
    raw = log("mixed.gh.txt")
    total = len(clean_log(raw))
    excerpt = select(raw, failed_steps_only=True)
    assert excerpt.lines[0] == "## Run pytest"
    assert "## Run npx jest" in excerpt.lines
    assert "## Run actions/checkout@v4" not in excerpt.lines
    assert "## Post job cleanup" not in excerpt.lines
    assert not excerpt.truncated
    shown = sum(len(s.lines) for s in split_steps(raw) if s.failed)
    assert (excerpt.total_lines, excerpt.omitted_lines) == (total, total - shown)
    assert excerpt.bytes == len(excerpt.text.encode()) + 1  # one newline per line


def test_select_failed_steps_when_nothing_failed() -> None:
    raw = log("go.txt")
    excerpt = select(raw, failed_steps_only=True)
    assert excerpt.lines == [] and excerpt.omitted_lines == excerpt.total_lines == 13


def test_select_tail() -> None:
    raw = log("pytest.gh.txt")
    lines = clean_log(raw)
    excerpt = select(raw, tail_lines=5)
    assert excerpt.lines == lines[-5:]
    assert excerpt.omitted_lines == len(lines) - 5 and not excerpt.truncated
    assert select(raw, tail_lines=0).lines == []
    assert select(raw, tail_lines=10**6).lines == lines


def test_select_grep_with_context() -> None:
    raw = log("mixed.gh.txt")
    clean = clean_log(raw)
    excerpt = select(raw, grep=r"^(FAILED|ERROR) ")
    lines = excerpt.lines
    matches = [ln for ln in lines if ln.startswith(("FAILED ", "ERROR "))]
    assert len(matches) == 5
    assert matches[1] == (
        "FAILED tests/test_inventory.py::test_total_weight - AssertionError: floating point "
        "sum of weights differs"
    )
    # two lines of context before the first match...
    first = clean.index(matches[0])
    assert lines[:3] == clean[first - 2 : first + 1]
    # ...and the kept lines are the log's, in order, groups split by "--"
    positions = []
    cursor = 0
    for line in lines:
        if line == "--":
            positions.append(None)
            continue
        cursor = clean.index(line, cursor)
        positions.append(cursor)
        cursor += 1
    for before, here, after in zip(positions, positions[1:], positions[2:], strict=False):
        if here is None:
            assert before is not None and after is not None and after > before + 1
    assert None in positions
    assert excerpt.omitted_lines == excerpt.total_lines - sum(p is not None for p in positions)


def test_select_grep_then_tail() -> None:
    raw = log("mixed.gh.txt")
    excerpt = select(raw, grep="^error: Process completed", tail_lines=3)
    # the last match (end of the jest step) and the two lines of context after it
    assert excerpt.lines == [
        "error: Process completed with exit code 1.",
        "## Post job cleanup",
        "[command]/usr/bin/git version",
    ]
    assert excerpt.omitted_lines == excerpt.total_lines - 3


def test_select_stays_within_the_byte_budget() -> None:
    raw = log("mixed.gh.txt")
    lines = clean_log(raw)
    excerpt = select(raw, max_bytes=1000)
    assert excerpt.bytes <= 1000
    assert len("\n".join(excerpt.lines).encode()) + 1 <= 1000
    assert excerpt.truncated
    assert excerpt.lines[-1] == lines[-1]  # the tail is kept
    marker = next(ln for ln in excerpt.lines if ln.startswith("[… "))
    omitted_in_marker = int(marker.split()[1])
    assert excerpt.omitted_lines == omitted_in_marker
    assert excerpt.omitted_lines + len(excerpt.lines) - 1 == len(lines)


def test_budget_is_shared_between_failed_steps() -> None:
    raw = log("mixed.gh.txt")
    excerpt = select(raw, failed_steps_only=True, max_bytes=1200)
    assert excerpt.bytes <= 1200 and excerpt.truncated
    assert excerpt.lines[0] == "## Run pytest"
    assert "## Run npx jest" in excerpt.lines
    # each failing step keeps its end, where the error is
    assert excerpt.lines.count("error: Process completed with exit code 1.") == 2
    assert sum(ln.startswith("[… ") for ln in excerpt.lines) == 2


def test_long_lines_are_capped() -> None:
    raw = "short\n" + "x" * 50_000 + "\nend\n"
    excerpt = select(raw)
    assert excerpt.lines[1] == "x" * MAX_LINE_CHARS + f"… [+{50_000 - MAX_LINE_CHARS} chars]"
    assert excerpt.truncated and excerpt.omitted_lines == 0


@pytest.mark.parametrize("pattern", ["(", "[a-", "a{2,1}", "(?P<x>a)(?P<x>b)"])
def test_invalid_regex_is_invalid_input(pattern: str) -> None:
    with pytest.raises(GitHubMCPError) as info:
        select("some log\n", grep=pattern)
    assert_invalid(info)
    assert "invalid grep pattern" in info.value.message


@pytest.mark.parametrize("pattern", [r"(x)\1", r"a(?=b)", "x" * 300, ""])
def test_patterns_the_linear_engine_cannot_run_are_refused(pattern: str) -> None:
    with pytest.raises(GitHubMCPError) as info:
        compile_grep(pattern)
    assert_invalid(info)


@pytest.mark.parametrize("pattern", ["(a+)+$", "(a|aa)*b", r"(\w+\s?)*x", ".*a.*b.*c"])
def test_backtracking_shapes_run_in_linear_time(pattern: str) -> None:
    # Catastrophic for a backtracking engine on these lines; RE2 reads each once.
    raw = "\n".join(["a" * MAX_GREP_LINE + "!", "ab" * 200 + "!", "word " * 100 + "!"] * 50)
    excerpt = select(raw, grep=pattern)
    assert excerpt.total_lines == 150


@pytest.mark.parametrize("pattern", ["error|FAIL", r"Timeout.*\d+s", r"(?i)assert\w*", r"[ab]+c"])
def test_ordinary_patterns_are_accepted(pattern: str) -> None:
    assert compile_grep(pattern).pattern == pattern


def test_grep_is_bounded_on_huge_lines() -> None:
    # 'a*b' against 2 MB of 'a' is quadratic per start position; only the line cap
    # keeps this test fast.
    raw = "start\n" + "a" * 2_000_000 + "\nend\n"
    excerpt = select(raw, grep="a*b")
    assert excerpt.lines == [] and excerpt.omitted_lines == 3


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [({"max_bytes": 10}, "max_bytes"), ({"tail_lines": -1}, "tail_lines")],
)
def test_bad_arguments(kwargs: dict[str, int], field: str) -> None:
    with pytest.raises(GitHubMCPError) as info:
        select("log\n", **kwargs)  # type: ignore[arg-type]
    assert_invalid(info)
    assert field in info.value.envelope()["error"]
