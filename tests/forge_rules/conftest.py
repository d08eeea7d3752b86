"""Fixtures: the collaboration forge tests' started forge (every REST response checked
against GitHub's OpenAPI description when the test ends), octocat/lab, and helpers that
set rulesets through the REST API itself."""

from __future__ import annotations

from typing import Any

import httpx2
import pytest

from tests.forge.contract import validate_request_bodies
from tests.forge_collab.conftest import (  # noqa: F401 - fixtures
    LAB,
    NOT_REST,
    Lab,
    api,
    demo,
    demo_api,
    forge,
    lab,
)

RULESETS = f"/repos/{LAB}/rulesets"


def add_ruleset(
    client: httpx2.Client, name: str, include: list[str], *rules: dict[str, Any], **extra: Any
) -> dict[str, Any]:
    body = {
        "name": name,
        "target": "branch",
        "enforcement": "active",
        "conditions": {"ref_name": {"include": include, "exclude": []}},
        "rules": list(rules),
        **extra,
    }
    created = client.post(RULESETS, json=body)
    assert created.status_code == 201, created.text
    return created.json()


def heads(world: Lab) -> dict[str, str]:
    """Every branch head of octocat/lab, from the forge's own git state."""
    record = world.forge.state.repo("octocat", "lab")
    assert record is not None
    return {
        name.removeprefix("refs/heads/"): sha
        for name, sha, _ in record.git.list_refs("refs/heads/")
    }


@pytest.fixture(autouse=True)
def _accepted_request_bodies_follow_the_description(forge):  # noqa: F811 - the fixture above
    """Every request body the forge accepted (status below 400) validates against its
    operation's requestBody in GitHub's OpenAPI description."""
    yield
    accepted = [r for r in forge.responses() if r["status"] < 400 and r["path"] not in NOT_REST]
    problems = validate_request_bodies(accepted)
    assert not problems, "request bodies that break GitHub's description:\n" + "\n".join(problems)
