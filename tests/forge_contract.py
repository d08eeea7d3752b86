"""The test run's side of the forge's self-check (sandbox_forge/contract/monitor.py).

Imported by tests/conftest.py before any forge exists, it points every forge this run
starts (in-process, or a child process that inherits the environment) at GitHub's
OpenAPI description and GraphQL schema, with one findings directory per pytest worker.
After each test, whatever the forges found since the last look fails that test with the
route and the schema's complaint; at the end the run prints what was reached, and fails if
anything found was never reported against a test.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from sandbox_forge.contract.monitor import ENV_DIR, ENV_GRAPHQL, ENV_OPENAPI, preload

ROOT = Path(__file__).resolve().parent.parent
OPENAPI = ROOT / ".cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json"
GRAPHQL = ROOT / ".cache/graphql-schema/node_modules/@octokit/graphql-schema/schema.graphql"
BASE_ENV = "SANDBOX_FORGE_CONTRACT_BASE"


def configure_environment() -> Path:
    """The findings directory of this process (one per xdist worker, under one base)."""
    base = os.environ.get(BASE_ENV)
    if not base:  # the controller (or a run without xdist): workers inherit this
        base = tempfile.mkdtemp(prefix="forge-contract-")
        os.environ[BASE_ENV] = base
    mine = Path(base) / os.environ.get("PYTEST_XDIST_WORKER", "main")
    os.environ[ENV_DIR] = str(mine)
    os.environ[ENV_OPENAPI] = str(OPENAPI)
    os.environ[ENV_GRAPHQL] = str(GRAPHQL)
    return mine


class Findings:
    """Reads the JSON-lines files forges append to, each from where it last stopped."""

    def __init__(self, directory: Path, kind: str):
        self.directory = directory
        self.kind = kind
        self.offsets: dict[Path, int] = {}

    def new(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        for path in sorted(self.directory.glob(f"*.{self.kind}.jsonl")):
            start = self.offsets.get(path, 0)
            with path.open("rb") as source:
                source.seek(start)
                chunk = source.read()
            complete = chunk[: chunk.rfind(b"\n") + 1]  # a line being written waits
            self.offsets[path] = start + len(complete)
            found += [json.loads(line) for line in complete.splitlines() if line.strip()]
        return found


def describe(violations: list[dict[str, Any]], limit: int = 30) -> str:
    lines = [f"  {v['route']}: {v['problem']}" for v in violations[:limit]]
    if len(violations) > limit:
        lines.append(f"  … and {len(violations) - limit} more")
    return "\n".join(lines)


def summarise(base: Path) -> dict[str, Any]:
    """What every forge of the run reached and found, over all workers."""
    rest: dict[str, set[str]] = defaultdict(set)
    graphql: set[str] = set()
    violations: list[dict[str, Any]] = []
    for path in base.glob("*/*.reached.jsonl"):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry["kind"] == "rest":
                route, _, status = entry["what"].rpartition(" ")
                rest[route].add(status)
            else:
                graphql.add(entry["what"])
    for path in base.glob("*/*.violations.jsonl"):
        violations += [json.loads(line) for line in path.read_text().splitlines()]
    return {
        "rest_routes": len(rest),
        "rest_route_statuses": sum(len(s) for s in rest.values()),
        "graphql_fields": len(graphql),
        "graphql_roots": len({f for f in graphql if f.split(".")[0] in ("Query", "Mutation")}),
        "violations": len(violations),
        "violating_routes": sorted({v["route"] for v in violations}),
        "routes": {route: sorted(statuses) for route, statuses in sorted(rest.items())},
        "graphql": sorted(graphql),
    }


MINE = configure_environment()
if OPENAPI.is_file() and GRAPHQL.is_file():  # a forge without them refuses to start
    preload(OPENAPI, GRAPHQL)
VIOLATIONS = Findings(MINE, "violations")


def fail_on_new(findings: Findings) -> None:
    """pytest.fail with every mismatch recorded since the last look, if any."""
    found = findings.new()
    if found:
        pytest.fail(
            "the forge answered unlike GitHub's descriptions (fix the forge, not the "
            f"description):\n{describe(found)}",
            pytrace=False,
        )


@pytest.fixture(autouse=True)
def _forge_answers_as_github_describes():
    """Fails the test when a forge answered it unlike GitHub's OpenAPI or GraphQL schema."""
    yield
    fail_on_new(VIOLATIONS)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    left = VIOLATIONS.new()  # found after the last test (module and session teardowns)
    if left:
        print(f"\nthe forge answered unlike GitHub's descriptions:\n{describe(left)}")
    failed = bool(left)
    base = os.environ.get(BASE_ENV)
    if os.environ.get("PYTEST_XDIST_WORKER") is None and base:
        summary = summarise(Path(base))
        (Path(base) / "summary.json").write_text(json.dumps(summary, indent=1))
        failed = failed or summary["violations"] > 0
    if failed and session.exitstatus == 0:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter: Any) -> None:
    base = os.environ.get(BASE_ENV)
    if os.environ.get("PYTEST_XDIST_WORKER") is not None or not base:
        return
    summary = summarise(Path(base))
    if not summary["rest_routes"] and not summary["graphql_fields"]:
        return
    terminalreporter.write_sep("-", "forge answers checked against GitHub's descriptions")
    terminalreporter.write_line(
        f"REST: {summary['rest_routes']} routes ({summary['rest_route_statuses']} route and "
        f"status pairs); GraphQL: {summary['graphql_fields']} fields "
        f"({summary['graphql_roots']} root fields); mismatches: {summary['violations']} "
        f"(details: {base}/summary.json)"
    )
