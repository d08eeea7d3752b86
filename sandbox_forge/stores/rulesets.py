"""Repository rulesets, as far as reading them goes: which active rules apply to a branch.

A ruleset targets branches by `conditions.ref_name` include and exclude patterns
(`~DEFAULT_BRANCH`, `~ALL`, or fnmatch patterns on the full ref name), as GitHub's do.
Only rulesets with enforcement `active` apply; `evaluate` and `disabled` ones do not,
and GitHub's rules-for-a-branch endpoint leaves them out. Enforcing the rules on the
paths that move refs is not modelled here.
"""

from __future__ import annotations

import fnmatch
import itertools
from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.stores.state import RepoRecord

EXTENSION = "rulesets"
_IDS = itertools.count(1000)


@dataclass
class Ruleset:
    id: int
    name: str
    rules: list[dict[str, Any]]
    include: list[str] = field(default_factory=lambda: ["~DEFAULT_BRANCH"])
    exclude: list[str] = field(default_factory=list)
    enforcement: str = "active"  # or "evaluate", "disabled"
    target: str = "branch"


def rulesets(repo: RepoRecord) -> list[Ruleset]:
    found: list[Ruleset] = repo.extra.setdefault(EXTENSION, [])
    return found


def add_ruleset(
    repo: RepoRecord,
    name: str,
    rules: list[dict[str, Any]],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    enforcement: str = "active",
) -> Ruleset:
    """A repository-level branch ruleset (the tests' and the demo's way to set one)."""
    ruleset = Ruleset(
        next(_IDS), name, [dict(r) for r in rules], include or ["~DEFAULT_BRANCH"],
        exclude or [], enforcement,
    )  # fmt: skip
    rulesets(repo).append(ruleset)
    return ruleset


def _matches(repo: RepoRecord, pattern: str, ref: str) -> bool:
    if pattern == "~ALL":
        return True
    if pattern == "~DEFAULT_BRANCH":
        return ref == f"refs/heads/{repo.default_branch}"
    return fnmatch.fnmatchcase(ref, pattern)


def applies(repo: RepoRecord, ruleset: Ruleset, branch: str) -> bool:
    ref = f"refs/heads/{branch}"
    return (
        ruleset.enforcement == "active"
        and ruleset.target == "branch"
        and any(_matches(repo, p, ref) for p in ruleset.include)
        and not any(_matches(repo, p, ref) for p in ruleset.exclude)
    )


def rules_for_branch(repo: RepoRecord, branch: str) -> list[dict[str, Any]]:
    """Every active rule that applies to `branch` (it need not exist), with its ruleset."""
    return [
        {
            **rule,
            "ruleset_source_type": "Repository",
            "ruleset_source": repo.full_name,
            "ruleset_id": ruleset.id,
        }
        for ruleset in rulesets(repo)
        if applies(repo, ruleset, branch)
        for rule in ruleset.rules
    ]
