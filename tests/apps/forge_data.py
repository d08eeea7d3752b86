"""Repositories, pull requests and CI runs made on the forge for the card tests, and the
forge's own REST answers as the evidence of what a card's button did."""

from __future__ import annotations

import itertools
from typing import Any

import httpx2 as httpx

from sandbox_forge.admin.collab_seeding import add_workflow_run, create_pull
from sandbox_forge.stores.actions_logs import job_log

_numbers = itertools.count(1)


def forge_get(forge: Any, path: str) -> Any:
    token = forge.create_token(login="octocat")
    response = httpx.get(f"{forge.base_url}{path}", headers={"Authorization": f"Bearer {token}"})
    return response.json()


def pytest_output(test: str, message: str) -> str:
    """What pytest prints for one failing test in tests/test_app.py at line 3."""
    return (
        "tests/test_app.py F\n"
        "=================================== FAILURES ===================================\n"
        f"_________________________________ {test} _________________________________\n\n"
        f"    def {test}():\n>       assert answer() == 42\nE       AssertionError: {message}\n\n"
        "tests/test_app.py:3: AssertionError\n"
        "=========================== short test summary info ============================\n"
        f"FAILED tests/test_app.py::{test} - AssertionError: {message}\n"
        "============================== 1 failed in 0.01s ===============================\n"
    )


def pr_with_failed_run(
    forge: Any,
    title: str = "Fix the answer",
    body: str = "",
    message: str = "assert 41 == 42",
) -> tuple[str, int, dict[str, Any]]:
    """A fresh repository with a PR from `feature` whose CI run failed one pytest test;
    returns (full name, PR number, the run)."""
    name = f"octo-org/cards-{next(_numbers)}"
    forge.seed_repo(
        name,
        {"app.py": "def answer():\n    return 41\n", "tests/test_app.py": "x = 1\n"},
        branches={"feature": {"app.py": "def answer():\n    return 42\n"}},
    )
    forge.add_collaborator(name, "bob", "write")
    pr = create_pull(forge, name, "feature", "main", title, user="alice", body=body)
    log = job_log(
        [("Run pytest", "pytest", pytest_output("test_answer", message), 1)], job_name="tests"
    )
    run = add_workflow_run(
        forge,
        name,
        "ci.yml",
        head_branch="feature",
        event="pull_request",
        conclusion="failure",
        jobs=[{"name": "tests", "conclusion": "failure", "steps": ["Run pytest"], "log": log}],
    )
    return name, pr["number"], run


def fresh_pr(forge: Any, title: str) -> tuple[str, dict[str, Any]]:
    """A fresh repository with a mergeable PR from `feature` into `main`, no CI."""
    name = f"octo-org/cards-merge-{next(_numbers)}"
    forge.seed_repo(name, {"app.py": "x = 1\n"}, branches={"feature": {"app.py": "x = 2\n"}})
    return name, create_pull(forge, name, "feature", "main", title, user="alice")
