"""No pattern or log can stall the server: an adversarial corpus for the tree
matcher and the CI/test-output parsers.

Bounds are on work done, never on wall time: the tree matcher's step meter
(`METER`), and for the parsers the structural fact that every regex they run
is an RE2 automaton plus the budget's caps on what they read. The two attacks
an outside probe used (stacked `**` patterns on a deep folder; jest output of
long blank lines) are also driven through a real MCP client against the forge,
with a cheap call running alongside to show the server is not starved.
"""

from __future__ import annotations

import asyncio
import importlib
import pkgutil
import re
import uuid
from typing import Any

import re2

import github_mcp.services.actions as ci_package
import github_mcp.services.actions.runners as runners_package
from github_mcp.services.actions._joblogs import select
from github_mcp.services.actions._test_output import Budget, parse_failures, summarize
from github_mcp.services.actions.runners.base import MAX_LINE, MAX_LINES
from github_mcp.services.repos.tree import TreeEntry, filter_entries
from github_mcp.services.repos.tree._patterns import METER, PathGlob, SegmentGlob, compile_line
from sandbox_forge.admin.seed_collab import add_workflow_run, create_pull
from sandbox_forge.stores.actions_logs import job_log
from tests.conftest import call_tool, mcp_client

# The probe's tree attack: eight stacked "a*/**/" then a literal that never matches.
STACKED = "a*/**/" * 8 + "zz/x"
# The probe's log attack: jest code-frame lines of 3 999 blanks and an "x".
BLANK_LINES = [" " * 3999 + "x"] * 95


def deep_path(depth: int, name: str = "f.txt") -> str:
    return "/".join(["a"] * depth) + "/" + name


def steps_of(fn, *args: Any, **kwargs: Any) -> tuple[Any, int]:
    before = METER.steps
    result = fn(*args, **kwargs)
    return result, METER.steps - before


# --------------------------------------------------------------------------- tree matcher


def test_stacked_double_stars_cost_linear_work_in_depth():
    rule = compile_line(STACKED)
    assert rule is not None and isinstance(rule.head, PathGlob)
    parts = STACKED.count("/") + 1
    costs = {}
    for depth in (20, 40, 60, 120):
        matched, steps = steps_of(rule.head.matches, "/".join(["a"] * depth))
        assert matched is False
        # At most one run tried per (segment, run) and one piece per segment glob.
        assert steps <= 2 * (depth + 1) * parts, (depth, steps)
        costs[depth] = steps
    # Doubling the depth at most doubles the work (plus the fixed runs).
    assert costs[120] <= 2 * costs[60] + 2 * parts
    assert costs[60] <= 2 * costs[40]


def test_stacked_double_stars_still_match_what_git_matches():
    head = compile_line("a*/**/b*/**/c/x")
    assert head is not None and isinstance(head.head, PathGlob)
    assert head.head.matches("ab/b/c")
    assert head.head.matches("a/q/r/bb/s/c")
    assert not head.head.matches("a/c")
    assert not head.head.matches("b/a/c")


def test_many_stars_in_one_segment_cost_one_step_per_piece():
    glob = SegmentGlob.compile("*a" * 40 + "b")
    for name in ("a" * 255, "ba" * 127, "a" * 254 + "c"):
        matched, steps = steps_of(glob.matches, name)
        assert matched is False
        assert steps <= 41
    assert glob.matches("a" * 40 + "b")


def test_filter_with_stacked_patterns_over_a_deep_tree_is_bounded():
    depth = 60
    entries = [TreeEntry(deep_path(d), "blob", "0" * 40, 10) for d in range(1, depth + 1)]
    gitignore = STACKED + "\n" + "*a" * 40 + "b\n"
    result, steps = steps_of(
        filter_entries, entries, gitignores={"": gitignore}, ignore_patterns=[STACKED] * 100
    )
    assert result.counts["kept"] == depth
    # Each directory is evaluated once per distinct head; the 100 user copies
    # and the .gitignore line share one compiled glob apiece.
    per_match = 2 * (depth + 1) * (STACKED.count("/") + 1)
    assert steps <= depth * per_match * 101 + 1000, steps


# --------------------------------------------------------------------------- parsers


def _module_patterns() -> list[tuple[str, str, Any]]:
    found = []
    modules = [
        "github_mcp.services.actions." + m.name for m in pkgutil.iter_modules(ci_package.__path__)
    ]
    modules += [
        "github_mcp.services.actions.runners." + m.name
        for m in pkgutil.iter_modules(runners_package.__path__)
    ]
    for name in modules:
        module = importlib.import_module(name)
        for attr, value in vars(module).items():
            if isinstance(value, re.Pattern | re2._Regexp):
                found.append((name, attr, value))
    return found


def test_every_log_parser_regex_is_an_automaton():
    patterns = _module_patterns()
    assert len(patterns) >= 50, len(patterns)
    backtracking = [f"{m}.{a}" for m, a, p in patterns if isinstance(p, re.Pattern)]
    assert backtracking == []


def test_jest_code_frame_payload_parses_under_the_budget():
    lines = ["FAIL src/a.test.js", "  ● cart › adds an item", "", *BLANK_LINES, "Tests: 1 failed"]
    budget = Budget()
    failures = parse_failures("\n".join(lines), budget=budget)
    assert [f.test for f in failures] == ["cart › adds an item"]
    assert not budget.truncated  # 4 000-char lines are within the per-line cap


def test_every_runner_on_adversarial_lines_reads_at_most_the_budget():
    wide = 2 * MAX_LINE
    shapes = [
        " " * wide + "x",
        "at " + "(" * wide + "x",
        "=" * wide,
        "FAILED " + "a" * wide,
        "test " + "." * wide,
        "--- FAIL: " + "/a" * (wide // 2),
        "\x1b[" + "1;" * (wide // 2),
        "[ERROR] " + "a." * (wide // 2),
        "thread '" + "'" * wide,
        "    at x (" + ":1" * (wide // 2),
        "  " + "|" * wide,
    ]
    markers = ["=== test session starts ===", "Tests: 1 failed", "running 1 test", "=== RUN T"]
    kept_noise = MAX_LINES - len(markers) - 100 * len(shapes)
    lines = ["noise"] * 10_000 + markers + shapes * 100 + ["noise"] * kept_noise
    text = "\n".join(lines)
    budget = Budget()
    parse_failures(text, budget=budget)
    assert budget.cut_lines == 10_000
    assert budget.cut_chars >= len(shapes) * 100 * MAX_LINE
    result = summarize(text)
    assert result.note is not None and "skipped" in result.note
    assert max(len(line) for line in select(text).lines) <= MAX_LINE


# --------------------------------------------------------------------------- through MCP


async def _with_cheap_calls(client, heavy, full_name: str, count: int = 5):
    """Run `heavy` with `count` cheap reads alongside; return both results."""

    async def cheap() -> bool:
        is_error, result = await call_tool(client, "get_repository", {"full_name": full_name})
        return not is_error and result["full_name"] == full_name

    outcome = await asyncio.gather(heavy, *(cheap() for _ in range(count)))
    return outcome[0], outcome[1:]


async def test_tree_attack_through_mcp_completes_and_does_not_starve(make_runtime, forge):
    full_name = f"redos-org/tree-{uuid.uuid4().hex[:8]}"
    depth = 60
    files = {deep_path(d): "x" for d in range(1, depth + 1, 3)}
    files[".gitignore"] = STACKED + "\n"
    files[deep_path(5, ".gitignore")] = STACKED + "\n"
    forge.seed_repo(full_name, files)
    before = METER.steps
    async with mcp_client(make_runtime()) as client:
        heavy = call_tool(
            client,
            "list_repository_tree",
            {"full_name": full_name, "ignore_patterns": [STACKED] * 100},
        )
        (is_error, tree), cheap = await _with_cheap_calls(client, heavy, full_name)
    assert not is_error, tree
    assert all(cheap) and len(cheap) == 5
    paths = {e["path"] for e in tree["file_tree"]}
    assert deep_path(depth - 2) in paths and deep_path(1) in paths
    # Bounded work: far below what one backtracking match of the pattern costs.
    per_match = 2 * (depth + 1) * (STACKED.count("/") + 1)
    assert METER.steps - before <= depth * per_match * 4, METER.steps - before


async def test_jest_blank_lines_log_through_get_failing_tests(make_runtime, forge):
    full_name = f"redos-org/ci-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"src/a.test.js": "test()"}, branches={"feature": {}})
    pr = create_pull(forge, full_name, "feature", "main", "Feature", user="alice")
    output = "\n".join(
        ["FAIL src/a.test.js", "  ● cart › adds an item", "", *BLANK_LINES, "Tests: 1 failed"]
    )
    log = job_log([("Run npx jest", "npx jest", output, 1)], job_name="js")
    add_workflow_run(
        forge, full_name, "ci.yml", ref="feature", event="pull_request",
        jobs=[{"name": "js", "status": "completed", "conclusion": "failure",
               "steps": ["Set up job", "Run npx jest"], "log": log}],
    )  # fmt: skip
    async with mcp_client(make_runtime()) as client:
        heavy = call_tool(client, "get_failing_tests", {"pr": f"{full_name}#{pr['number']}"})
        (is_error, result), cheap = await _with_cheap_calls(client, heavy, full_name)
    assert not is_error, result
    assert all(cheap) and len(cheap) == 5
    assert [t["test"] for t in result["failures"]] == ["cart › adds an item"]
    assert result["failures"][0]["file"] == "src/a.test.js"
