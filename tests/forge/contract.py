"""Recorded forge responses held against GitHub's published OpenAPI description.

The spec comes from the npm package @octokit/openapi (see fetch_openapi.sh); the checking
itself is the forge's own (sandbox_forge/contract/openapi.py), which every forge of the
test run also applies to each answer as it gives it (tests/forge_contract.py). These
helpers check a list of recorded responses, and say which operations a scenario reached.
"""

from __future__ import annotations

import functools
from pathlib import Path
from typing import Any

from sandbox_forge.contract.openapi import ContractValidator, load_description

OPENAPI_PACKAGE = "@octokit/openapi"
OPENAPI_VERSION = "23.0.2"
REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = REPO_ROOT / ".cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json"


class SpecMissing(RuntimeError):
    pass


@functools.cache
def load_spec(path: Path = SPEC_PATH) -> dict[str, Any]:
    if not path.is_file():
        raise SpecMissing(
            f"GitHub's OpenAPI description is missing at {path}. "
            f"Run tests/forge/fetch_openapi.sh (installs {OPENAPI_PACKAGE}@{OPENAPI_VERSION})."
        )
    return load_description(path)


@functools.cache
def validator() -> ContractValidator:
    return ContractValidator(load_spec())


def validate_records(records: list[dict[str, Any]]) -> list[str]:
    """Every problem found in recorded responses; an empty list means all conform."""
    check = validator()
    return [problem for record in records for problem in check.validate(record)]


def validate_request_bodies(records: list[dict[str, Any]]) -> list[str]:
    """Each recorded JSON request body against its operation's documented requestBody
    (records without a body, or of operations without one, pass)."""
    check = validator()
    return [problem for record in records for problem in check.validate_request(record)]


def operations_covered(records: list[dict[str, Any]]) -> dict[str, set[int]]:
    """operationId -> statuses seen, to show which operations a run exercised."""
    check = validator()
    covered: dict[str, set[int]] = {}
    for record in records:
        op = check.operation(record["method"], record["path"])
        if op is not None:
            covered.setdefault(op.operation_id, set()).add(record["status"])
    return covered
