"""Failing-test extraction, checked on logs written by the real runners.

The logs under tests/fixtures/runner_logs/ were produced by
tests/fixtures/make_runner_logs.py running the projects in
tests/fixtures/runner_projects/ (versions in runner_logs/VERSIONS.txt).
"""

from __future__ import annotations

import cProfile
import shlex
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.actions import _joblogs as joblogs
from github_mcp.services.actions._test_output import (
    Budget,
    FailingEntry,
    TestCounts,
    TestFailure,
    detect_runner,
    detect_runners,
    parse_counts,
    parse_failures,
    parse_junit_xml,
    rerun_command,
    summarize,
)
from github_mcp.services.actions.runners.base import MAX_LINE, MAX_LINES

LOGS = Path(__file__).resolve().parent.parent / "fixtures" / "runner_logs"


def log(name: str) -> str:
    return (LOGS / name).read_text(encoding="utf-8")


def by_test(failures: list[TestFailure]) -> dict[str, TestFailure]:
    return {f.test: f for f in failures}


def tally(counts: TestCounts | None) -> tuple[int, int, int, int]:
    assert counts is not None
    return counts.passed, counts.failed, counts.errors, counts.skipped


# (test, file, line, a key part of the message)
PYTEST = [
    (
        "tests/test_inventory.py::test_restock_keeps_other_items",
        "tests/test_inventory.py",
        16,
        "{'apple': 2} != {'apple': 3}",
    ),
    (
        "tests/test_inventory.py::test_total_weight",
        "tests/test_inventory.py",
        21,
        "AssertionError: floating point sum of weights differs\nassert 0.30000000000000004 == 0.3",
    ),
    (
        "tests/test_inventory.py::test_sku[big pear-BIG-PEAR]",
        "tests/test_inventory.py",
        31,
        "assert 'BIG_PEAR' == 'BIG-PEAR'",
    ),
    (
        "tests/test_inventory.py::TestWarehouse::test_lookup",
        "tests/test_inventory.py",
        40,
        "KeyError: 'b2'",
    ),
    (
        "tests/test_inventory.py::test_uses_database",
        "tests/test_inventory.py",
        45,
        "ConnectionError: database unavailable at localhost:5432",
    ),
]
UNITTEST = [
    ("billing.test_invoice.InvoiceTest.test_currency_lookup", 21, "KeyError: 'USD'"),
    (
        "billing.test_invoice.InvoiceTest.test_lines_rendered",
        17,
        "AssertionError: '2 x 10\\n1 x 5' != '2 x 10\\n1 x 6'\n  2 x 10\n- 1 x 5",
    ),
    (
        "billing.test_invoice.InvoiceTest.test_total_with_discount",
        13,
        "25 != 20 : discount not applied",
    ),
    ("billing.test_invoice.RoundingTest.test_round_half_even (value=2.5)", 32, "2 != 3"),
]
JEST = [
    ("cart › adds an item", "src/__tests__/cart.test.js", 10, '-   "count": 1,\n+   "count": 0,'),
    ("cart › totals › sums prices", "src/__tests__/cart.test.js", 15, "Expected: 8\nReceived: 7"),
    (
        "rejects strings",
        "src/__tests__/format.test.js",
        13,
        "TypeError: price must be a number, got string",
    ),
    # a suite that fails to load is an error named after its file
    (
        "src/__tests__/receipt.test.js",
        "src/__tests__/receipt.test.js",
        1,
        "Cannot find module '../receipt' from 'src/__tests__/receipt.test.js'",
    ),
]
VITEST = [
    (
        "test/report.test.js",
        "test/report.test.js",
        2,
        "Error: Cannot find module '../src/report.js' imported from",
    ),
    (
        "reports the bad key",
        "test/config.test.js",
        12,
        "SyntaxError: Expected double-quoted property name in JSON at position 12",
    ),
    (
        "slugify > strips punctuation",
        "test/slug.test.js",
        10,
        "expected 'hello,-world!' to be 'hello-world'",
    ),
    ("parseTags > drops empty tags", "test/slug.test.js", 16, '    "a",\n+   "",\n    "b",'),
]
GO = [
    ("TestDiscountRounding", 16, "Discount(999, 15) = 850, want 849"),
    ("TestSplit", 24, "Split(1000, 3) mismatch:\n     got: [333 333 333]\n    want: [334 333 333]"),
    ("TestDiscountTable/odd_cents", 40, "Discount(101, 50) = 51, want 50"),
]
CARGO = [
    (
        "tests::parses_cents",
        "src/lib.rs",
        26,
        "assertion `left == right` failed\n  left: Ok(1205)\n right: Ok(1250)",
    ),
    (
        "tests::rejects_garbage",
        "src/lib.rs",
        31,
        "called `Result::unwrap()` on an `Err` value",
    ),
    (
        "statement_balance",
        "tests/statement.rs",
        6,
        "statement does not balance:\nentries: [1000, -250, 75]\nbalance: 825",
    ),
]
MAVEN = [
    (
        "com.example.OrderTest.totalsAllItems",
        22,
        "AssertionFailedError: expected: <350> but was: <250>",
    ),
    (
        "com.example.OrderTest.printsReceipt",
        30,
        "receipt lines ==> expected: <100\n250\ntotal 350\n> but was: <100\n250\n>",
    ),
    (
        "com.example.DiscountTest.parsesCode",
        11,
        'NullPointerException: Cannot invoke "String.startsWith(String)" because "code" is null',
    ),
]


def test_pytest_summary_and_sections() -> None:
    failures = parse_failures(log("pytest.txt"))
    assert [f.test for f in failures] == [t for t, *_ in PYTEST]
    for failure, (_test, file, line, part) in zip(failures, PYTEST, strict=True):
        assert (failure.runner, failure.file, failure.line) == ("pytest", file, line)
        assert part in failure.message
    # pytest's hints about its own diff output are noise, not the failure
    assert "use -vv to show" not in failures[0].message
    counts = parse_counts(log("pytest.txt"))
    assert tally(counts) == (3, 4, 1, 1)
    assert counts is not None and counts.duration_s is not None and counts.duration_s < 5


def test_pytest_without_short_summary_uses_the_sections() -> None:
    text = log("pytest_sections.txt")
    assert "short test summary info" not in text
    found = by_test(parse_failures(text, "pytest"))
    assert set(found) == {t for t, *_ in PYTEST}
    for test, file, line, part in PYTEST:
        assert (found[test].file, found[test].line) == (file, line)
        assert part in found[test].message


def test_pytest_collection_error() -> None:
    text = log("pytest_collect_error.txt")
    [failure] = parse_failures(text)
    assert failure.test == "tests/test_broken_import.py"
    assert (failure.file, failure.line) == ("tests/test_broken_import.py", 1)
    assert failure.message == "ModuleNotFoundError: No module named 'inventory_missing_module'"
    assert tally(parse_counts(text)) == (0, 0, 1, 0)
    assert rerun_command(failure) == "pytest tests/test_broken_import.py"


def test_unittest() -> None:
    text = log("unittest.txt")
    assert detect_runner(text) == "unittest"
    failures = parse_failures(text)
    assert [f.test for f in failures] == [t for t, *_ in UNITTEST]
    for failure, (_test, line, part) in zip(failures, UNITTEST, strict=True):
        assert failure.file is not None and failure.file.endswith("billing/test_invoice.py")
        assert failure.line == line
        assert part in failure.message
    # the traceback is not the message: the exception is
    assert "Traceback" not in failures[0].message
    assert tally(parse_counts(text)) == (1, 3, 1, 1)


def test_jest() -> None:
    text = log("jest.txt")
    assert detect_runner(text) == "jest"
    failures = parse_failures(text)
    assert [(f.test, f.file, f.line) for f in failures] == [(t, f, n) for t, f, n, _ in JEST]
    for failure, (*_, part) in zip(failures, JEST, strict=True):
        assert part in failure.message
        assert " | " not in failure.message  # no code frame
        assert "at Object." not in failure.message  # no stack
    assert tally(parse_counts(text)) == (2, 3, 1, 1)
    assert rerun_command(failures[3]) == "npx jest src/__tests__/receipt.test.js"


def test_vitest() -> None:
    text = log("vitest.txt")
    assert detect_runner(text) == "vitest"
    failures = parse_failures(text)
    assert [(f.test, f.file, f.line) for f in failures] == [(t, f, n) for t, f, n, _ in VITEST]
    for failure, (*_, part) in zip(failures, VITEST, strict=True):
        assert part in failure.message
        assert "❯" not in failure.message
    counts = parse_counts(text)
    assert tally(counts) == (2, 3, 1, 1)
    assert counts is not None and counts.duration_s is not None
    assert rerun_command(failures[0]) == "npx vitest run test/report.test.js"


def test_vitest_summary_tree_when_the_detail_blocks_are_cut() -> None:
    text = log("vitest.txt").split("Failed Suites")[0]
    found = by_test(parse_failures(text, "vitest"))
    # the tree lists tests, not suites that failed to load
    assert set(found) == {t for t, *_ in VITEST[1:]}
    assert found["slugify > strips punctuation"].file == "test/slug.test.js"
    assert "to be 'hello-world'" in found["slugify > strips punctuation"].message


@pytest.mark.parametrize("name", ["go.txt", "go_verbose.txt"])
def test_go(name: str) -> None:
    text = log(name)
    assert detect_runner(text) == "go"
    failures = parse_failures(text)
    assert [(f.test, f.line) for f in failures] == [(t, n) for t, n, _ in GO]
    for failure, (*_, part) in zip(failures, GO, strict=True):
        assert failure.file == "calc_test.go"
        assert failure.suite == "example.com/shop/calc"
        assert failure.message == part


def test_go_build_failure() -> None:
    text = log("go_build_failed.txt")
    [failure] = parse_failures(text)
    assert failure.test == failure.suite == "example.com/ledger/money"
    assert (failure.file, failure.line) == ("money/money_test.go", 12)
    assert failure.message == "money/money_test.go:12:12: undefined: Round"
    assert tally(parse_counts(text)) == (0, 0, 1, 0)
    assert rerun_command(failure) == "go test example.com/ledger/money"


def test_go_counts_with_and_without_v() -> None:
    # Without -v go prints only failures: passes and skips are not visible.
    assert tally(parse_counts(log("go.txt"))) == (0, 3, 0, 0)
    counts = parse_counts(log("go_verbose.txt"))
    # leaves only: the failing parent TestDiscountTable is its failing subtest
    assert tally(counts) == (3, 3, 0, 1)
    assert counts is not None and counts.duration_s is not None


def test_cargo() -> None:
    text = log("cargo.txt")
    assert detect_runner(text) == "cargo"
    failures = parse_failures(text)
    assert [(f.test, f.file, f.line) for f in failures] == [(t, f, n) for t, f, n, _ in CARGO]
    for failure, (*_, part) in zip(failures, CARGO, strict=True):
        assert part in failure.message
        assert "RUST_BACKTRACE" not in failure.message
    assert [f.suite for f in failures] == ["src/lib.rs", "src/lib.rs", "tests/statement.rs"]
    assert tally(parse_counts(text)) == (2, 3, 0, 1)


def test_cargo_with_backtraces_keeps_only_the_panic_message() -> None:
    failures = parse_failures(log("cargo.gh.txt"))
    assert "stack backtrace" in log("cargo.gh.txt")
    assert [f.message for f in failures] == [f.message for f in parse_failures(log("cargo.txt"))]
    assert all("core::panicking" not in f.message for f in failures)


def test_maven_surefire() -> None:
    text = log("maven.txt")
    assert detect_runner(text) == "maven"
    failures = parse_failures(text)
    assert [(f.test, f.line) for f in failures] == [(t, n) for t, n, _ in MAVEN]
    for failure, (*_, part) in zip(failures, MAVEN, strict=True):
        assert part in failure.message
        assert "\tat " not in failure.message
    assert failures[0].file == "com/example/OrderTest.java"
    assert failures[2].file == "com/example/DiscountTest.java"
    assert failures[0].suite == "com.example.OrderTest"
    assert tally(parse_counts(text)) == (2, 2, 1, 1)


GH_PAIRS = [
    ("pytest.txt", "pytest.gh.txt"),
    ("unittest.txt", "unittest.gh.txt"),
    ("jest.txt", "jest.gh.txt"),
    ("vitest.txt", "vitest.gh.txt"),
    ("go_verbose.txt", "go_verbose.gh.txt"),
    ("cargo.txt", "cargo.gh.txt"),
    ("maven.txt", "maven.gh.txt"),
]


@pytest.mark.parametrize(("plain", "wrapped"), GH_PAIRS)
def test_github_job_log_gives_the_same_results(plain: str, wrapped: str) -> None:
    raw = log(wrapped)
    assert raw.startswith("\ufeff") and "##[group]Run " in raw and "\x1b[" in raw
    expected = parse_failures(log(plain))
    assert expected
    cleaned = "\n".join(joblogs.clean_log(raw))
    assert parse_failures(cleaned) == expected
    assert parse_failures(raw) == expected
    assert tally(parse_counts(raw)) == tally(parse_counts(log(plain)))
    assert detect_runners(raw) == detect_runners(log(plain))


@pytest.mark.parametrize("name", ["pytest.txt", "jest.txt", "cargo.txt", "maven.gh.txt"])
def test_crlf_line_endings(name: str) -> None:
    text = log(name)
    crlf = text.replace("\n", "\r\n")
    assert parse_failures(crlf) == parse_failures(text)
    assert parse_counts(crlf) == parse_counts(text)


def test_mixed_pytest_then_jest_job() -> None:
    text = log("mixed.gh.txt")
    assert detect_runners(text) == ["pytest", "jest"]
    assert detect_runner(text) == "pytest"
    failures = parse_failures(text)
    assert [f.test for f in failures] == [t for t, *_ in PYTEST] + [t for t, *_ in JEST]
    assert {f.runner for f in failures[:5]} == {"pytest"}
    assert {f.runner for f in failures[5:]} == {"jest"}
    counts = parse_counts(text)
    assert tally(counts) == (3 + 2, 4 + 3, 1 + 1, 1 + 1)
    # asking for one runner gives only its part
    assert [f.test for f in parse_failures(text, "jest")] == [t for t, *_ in JEST]
    assert tally(parse_counts(text, "pytest")) == (3, 4, 1, 1)


def test_junit_xml_from_pytest_matches_the_console() -> None:
    counts, failures = parse_junit_xml((LOGS / "pytest.junit.xml").read_bytes())
    assert tally(counts) == (3, 4, 1, 1)
    assert counts.duration_s is not None and counts.duration_s > 0
    console = parse_failures(log("pytest.txt"))
    assert failures == console


def test_junit_xml_from_surefire() -> None:
    order_counts, order = parse_junit_xml(
        (LOGS / "surefire" / "TEST-com.example.OrderTest.xml").read_text(encoding="utf-8")
    )
    discount_counts, discount = parse_junit_xml(
        (LOGS / "surefire" / "TEST-com.example.DiscountTest.xml").read_bytes()
    )
    assert tally(order_counts) == (1, 2, 0, 1)
    assert tally(discount_counts) == (1, 0, 1, 0)
    assert tally(order_counts + discount_counts) == tally(parse_counts(log("maven.txt")))
    console = by_test(parse_failures(log("maven.txt")))
    for failure in order + discount:
        assert failure.runner == "maven"
        assert failure == console[failure.test]


@pytest.mark.parametrize(
    "doc",
    [
        '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><testsuite>&a;</testsuite>',
        "<!doctype testsuite><testsuite/>",
        '<!ENTITY e SYSTEM "file:///etc/passwd"><testsuite/>',
    ],
)
def test_junit_xml_refuses_dtds_and_entities(doc: str) -> None:
    for data in (doc, doc.encode(), doc.encode("utf-16")):
        with pytest.raises(GitHubMCPError) as info:
            parse_junit_xml(data)
        assert info.value.code is ErrorCode.INVALID_INPUT


def test_junit_xml_truncated_report_keeps_what_was_written() -> None:
    xml = (LOGS / "pytest.junit.xml").read_text(encoding="utf-8")
    cut = xml[: xml.index('name="test_sku[big pear-BIG-PEAR]"')]
    counts, failures = parse_junit_xml(cut)
    assert [f.test for f in failures] == [t for t, *_ in PYTEST[:2]]
    assert tally(counts) == (2, 2, 0, 1)
    assert parse_junit_xml("not xml at all") == (TestCounts(), [])


RERUNS = [
    ("pytest.txt", 2, "pytest 'tests/test_inventory.py::test_sku[big pear-BIG-PEAR]'"),
    ("pytest.txt", 3, "pytest tests/test_inventory.py::TestWarehouse::test_lookup"),
    (
        "unittest.txt",
        3,
        "python -m unittest billing.test_invoice.RoundingTest.test_round_half_even",
    ),
    ("jest.txt", 1, "npx jest src/__tests__/cart.test.js -t '^cart totals sums prices$'"),
    ("vitest.txt", 2, "npx vitest run test/slug.test.js -t '^slugify strips punctuation$'"),
    ("go.txt", 0, "go test -run '^TestDiscountRounding$' example.com/shop/calc"),
    ("go.txt", 2, "go test -run '^TestDiscountTable$/^odd_cents$' example.com/shop/calc"),
    ("cargo.txt", 0, "cargo test --lib tests::parses_cents -- --exact"),
    ("cargo.txt", 2, "cargo test --test statement statement_balance -- --exact"),
    ("maven.txt", 0, "mvn -Dtest='com.example.OrderTest#totalsAllItems' test"),
]


@pytest.mark.parametrize(("name", "index", "command"), RERUNS)
def test_rerun_commands(name: str, index: int, command: str) -> None:
    # Each of these was run by hand against runner_projects/ and ran just that test.
    assert rerun_command(parse_failures(log(name))[index]) == command


def test_rerun_commands_quote_hostile_names() -> None:
    name = "tests/t.py::test_x[$(touch pwned); echo 'hi']"
    command = rerun_command(TestFailure(name, "", "pytest"))
    assert command is not None and shlex.split(command) == ["pytest", name]
    jest = rerun_command(TestFailure("a › b (x|y) $HOME", "", "jest", "src/a b.test.js"))
    assert jest is not None
    assert shlex.split(jest) == ["npx", "jest", "src/a b.test.js", "-t", r"^a b \(x\|y\) \$HOME$"]
    go = rerun_command(TestFailure("TestA/case_1.5", "", "go", suite="example.com/x"))
    assert go == r"go test -run '^TestA$/^case_1\.5$' example.com/x"
    assert rerun_command(TestFailure("x", "", "nosuchrunner")) is None


def test_messages_are_trimmed() -> None:
    text = log("pytest.txt").replace("KeyError: 'b2'", "KeyError: '" + "b" * 5000 + "'")
    failure = by_test(parse_failures(text))["tests/test_inventory.py::TestWarehouse::test_lookup"]
    assert failure.message.startswith("KeyError: 'bbb")
    assert len(failure.message) <= 400 and failure.message.endswith("…")


@pytest.mark.parametrize(
    "junk",
    [
        "",
        "hello world\n",
        bytes(range(256)) * 64,
        "FAILED \n=== \n--- FAIL: \n---- x stdout ----\n● \n FAIL  \n[ERROR] Tests run: x",
        "[" * 100_000,
        "\x1b[" * 10_000 + "\r" * 1000,
    ],
)
def test_odd_input_never_raises(junk: str | bytes) -> None:
    assert isinstance(parse_failures(junk), list)
    for runner in ("pytest", "unittest", "jest", "vitest", "go", "cargo", "maven"):
        assert isinstance(parse_failures(junk, runner), list)
        parse_counts(junk, runner)
    assert detect_runner(junk) is None or isinstance(detect_runner(junk), str)


def test_unknown_runner_and_plain_text() -> None:
    assert detect_runner("just some build output\nall good\n") is None
    assert parse_failures(log("pytest.txt"), "nosuchrunner") == []
    assert parse_counts("no summary here") is None


def _large_log(n: int) -> str:
    """n pytest summary lines, n go lines, n/2 jest blocks, a 2000-level subtest name and a
    2 MB single line."""
    lines = ["FAILED tests/t.py::test_" + str(i) + " - AssertionError: x" for i in range(n)]
    lines += ["=== RUN   Test" + "/a" * 2000, "--- FAIL: Test" + "/a" * 2000 + " (0.00s)"]
    lines += ["x" * 2_000_000]
    lines += ["    calc_test.go:1: y"] * n + ["  ● a › b", "    at x (y.js:1:1)"] * (n // 2)
    return "=== short test summary info ===\n" + "\n".join(lines)


def _parse_counting_calls(n: int) -> tuple[list[TestFailure], Budget, int]:
    """The failures and budget of parsing `_large_log(n)`, and the function calls (Python
    and C) the parse made: a count of the work done, the same on an idle or a busy machine."""
    profile, budget = cProfile.Profile(), Budget(max_lines=200_000)
    failures = profile.runcall(parse_failures, _large_log(n), budget=budget)
    return failures, budget, sum(entry.callcount for entry in profile.getstats())


def test_large_logs_stay_linear() -> None:
    # A 2 MB single line and a 2000-level subtest name would take minutes if any pass over
    # them were quadratic. Twice the lines must be twice the work, not four times (a
    # quadratic pass over the lines), counted in calls rather than timed.
    calls = []
    for n in (1_000, 2_000):
        failures, budget, made = _parse_counting_calls(n)
        assert sum(f.runner == "pytest" for f in failures) == n
        assert budget.cut_lines == 0 and budget.cut_chars >= 2_000_000 - MAX_LINE
        calls.append(made)
    assert 1.9 < calls[1] / calls[0] < 2.1, calls


def test_default_budget_reads_the_last_lines_and_says_so() -> None:
    head = ["FAILED tests/t.py::test_early - AssertionError: x"]
    filler = ["noise"] * MAX_LINES
    tail = ["=== short test summary info ===", "FAILED tests/t.py::test_late - AssertionError: y"]
    budget = Budget()
    failures = parse_failures("\n".join(head + filler + tail), budget=budget)
    assert [f.test for f in failures] == ["tests/t.py::test_late"]
    assert budget.cut_lines == 3 and "the first 3 lines were skipped" in (budget.note() or "")
    result = summarize("\n".join(head + filler + tail))
    assert result.note == budget.note()
    assert summarize("\n".join(tail)).note is None


def test_summarize_gives_the_run_tests_shape() -> None:
    result = summarize(log("mixed.gh.txt"), max_failures=6)
    assert (result.passed, result.failed, result.errors, result.skipped) == (5, 7, 2, 2)
    assert result.runners == ["pytest", "jest"]
    assert len(result.failing) == 6 and result.failing_omitted == 3
    assert result.failing[3] == FailingEntry(
        name="tests/test_inventory.py::TestWarehouse::test_lookup",
        message="KeyError: 'b2'",
        file="tests/test_inventory.py",
        line=40,
        rerun="pytest tests/test_inventory.py::TestWarehouse::test_lookup",
    )
    assert result.failing[5].rerun == (
        "npx jest src/__tests__/cart.test.js -t '^cart adds an item$'"
    )


def test_summarize_prefers_the_junit_report() -> None:
    xml = (LOGS / "pytest.junit.xml").read_bytes()
    result = summarize("output cut short by a timeout", junit_xml=xml)
    assert (result.passed, result.failed, result.errors, result.skipped) == (3, 4, 1, 1)
    assert [f.name for f in result.failing] == [t for t, *_ in PYTEST]
    assert result.runners == ["pytest"]
    empty = summarize("nothing recognisable here")
    assert empty.passed is None and empty.failing == [] and empty.runners == []
