"""Repository rulesets, as GitHub's REST rulesets API describes them: a named set of rules
(creation, deletion, non_fast_forward, required_signatures, pull_request, ...) applied to the
refs its `conditions.ref_name` include and do not exclude (`~DEFAULT_BRANCH`, `~ALL`, or
fnmatch patterns on the full ref name, `*` within one path segment and `**` across them).
Only rulesets with enforcement `active` apply; `evaluate` and `disabled` ones do not, and
GitHub's rules-for-a-branch endpoint leaves them out. sandbox_forge/rules/enforce.py
enforces them on every path that moves a ref."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.kernel.errors import invalid_request, validation_failed
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

EXTENSION = "rulesets"
_IDS = itertools.count(1000)
TARGETS = ("branch", "tag")
ENFORCEMENTS = ("disabled", "active", "evaluate")
# Rule types the forge enforces; parameters are kept as given (GitHub's shapes).
RULE_TYPES = (
    "creation",
    "update",
    "deletion",
    "required_linear_history",
    "required_signatures",
    "pull_request",
    "required_status_checks",
    "non_fast_forward",
)
# Bypass actors that stand for a repository administrator (GitHub's role id 5 is admin).
ADMIN_ACTORS = {("RepositoryRole", 5), ("OrganizationAdmin", 1), ("OrganizationAdmin", None)}


@dataclass
class Ruleset:
    id: int
    name: str
    target: str
    enforcement: str
    include: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    rules: list[dict[str, Any]] = field(default_factory=list)
    bypass_actors: list[dict[str, Any]] = field(default_factory=list)
    created_at: float = field(default_factory=now)
    updated_at: float = field(default_factory=now)

    def admin_bypass(self) -> bool:
        return any(
            (actor.get("actor_type"), actor.get("actor_id")) in ADMIN_ACTORS
            for actor in self.bypass_actors
        )


def rulesets(repo: RepoRecord) -> dict[int, Ruleset]:
    found: dict[int, Ruleset] = repo.extra.setdefault(EXTENSION, {})
    return found


# --- ref name conditions --------------------------------------------------------------------


def _pattern(pattern: str, target: str) -> re.Pattern[str]:
    """fnmatch as GitHub's ref conditions use it: `*` stays within one path segment,
    `**` crosses them."""
    if not pattern.startswith("refs/"):
        pattern = ("refs/tags/" if target == "tag" else "refs/heads/") + pattern
    out = ""
    for token in re.split(r"(\*\*|\*|\?)", pattern):
        out += {"**": ".*", "*": "[^/]*", "?": "[^/]"}.get(token, re.escape(token))
    return re.compile(f"^{out}$")


def _matches(pattern: str, ref: str, repo: RepoRecord, target: str) -> bool:
    prefix = "refs/tags/" if target == "tag" else "refs/heads/"
    if pattern == "~ALL":
        return ref.startswith(prefix)
    if pattern == "~DEFAULT_BRANCH":
        return target == "branch" and ref == f"refs/heads/{repo.default_branch}"
    return bool(_pattern(pattern, target).match(ref))


def applies(ruleset: Ruleset, repo: RepoRecord, ref: str) -> bool:
    if ruleset.enforcement != "active":
        return False
    if not any(_matches(p, ref, repo, ruleset.target) for p in ruleset.include):
        return False
    return not any(_matches(p, ref, repo, ruleset.target) for p in ruleset.exclude)


def rules_for_branch(repo: RepoRecord, branch: str) -> list[dict[str, Any]]:
    """Every active rule that applies to `branch` (it need not exist), with its ruleset."""
    return [
        {
            **rule,
            "ruleset_source_type": "Repository",
            "ruleset_source": repo.full_name,
            "ruleset_id": ruleset.id,
        }
        for ruleset, rule in rules_for_ref(repo, f"refs/heads/{branch}")
    ]


def rules_for_ref(repo: RepoRecord, ref: str) -> list[tuple[Ruleset, dict[str, Any]]]:
    """Every active rule on ref, with the ruleset it comes from (ordered by ruleset id)."""
    return [
        (ruleset, rule)
        for _, ruleset in sorted(rulesets(repo).items())
        if applies(ruleset, repo, ref)
        for rule in ruleset.rules
    ]


# --- request bodies -------------------------------------------------------------------------


def _strings(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise invalid_request(f"For 'properties/{where}', {value!r} is not an array of strings.")
    return list(value)


def _rules(value: Any) -> list[dict[str, Any]]:
    if not isinstance(value, list):
        raise invalid_request(f"For 'properties/rules', {value!r} is not an array.")
    rules = []
    for index, rule in enumerate(value):
        kind = rule.get("type") if isinstance(rule, dict) else None
        if kind not in RULE_TYPES:
            raise invalid_request(
                f"Invalid property /rules/{index}: data matches no possible input."
            )
        params = rule.get("parameters")
        if params is not None and not isinstance(params, dict):
            raise invalid_request(f"For 'properties/rules/{index}/parameters', is not an object.")
        rules.append({"type": kind, **({"parameters": params} if params is not None else {})})
    return rules


def apply_body(ruleset: Ruleset, body: dict[str, Any]) -> None:
    """Sets the fields a POST or PUT body names; ApiError 422 for a malformed one."""
    if "name" in body:
        if not isinstance(body["name"], str) or not body["name"].strip():
            raise invalid_request("For 'properties/name', is not a non-empty string.")
        ruleset.name = body["name"]
    for key, allowed in (("target", TARGETS), ("enforcement", ENFORCEMENTS)):
        if key in body:
            if body[key] not in allowed:
                raise invalid_request(
                    f"For 'properties/{key}', {body[key]!r} is not one of {list(allowed)}."
                )
            setattr(ruleset, key, body[key])
    _apply_conditions_and_rules(ruleset, body)
    ruleset.updated_at = now()


def _apply_conditions_and_rules(ruleset: Ruleset, body: dict[str, Any]) -> None:
    if "conditions" in body:
        ref_name = (body["conditions"] or {}).get("ref_name") or {}
        if not isinstance(ref_name, dict):
            raise invalid_request("For 'properties/conditions', is not an object.")
        ruleset.include = _strings(ref_name.get("include", []), "include")
        ruleset.exclude = _strings(ref_name.get("exclude", []), "exclude")
    if "rules" in body:
        ruleset.rules = _rules(body["rules"])
    if "bypass_actors" in body:
        actors = body["bypass_actors"]
        if not isinstance(actors, list) or not all(isinstance(a, dict) for a in actors):
            raise invalid_request("For 'properties/bypass_actors', is not an array of objects.")
        ruleset.bypass_actors = [dict(a) for a in actors]


def _unique_name(repo: RepoRecord, ruleset: Ruleset) -> None:
    for other in rulesets(repo).values():
        if other.id != ruleset.id and other.name == ruleset.name:
            raise validation_failed(
                {
                    "resource": "Ruleset",
                    "code": "custom",
                    "field": "name",
                    "message": "Name must be unique",
                }
            )


def create_ruleset(state: ForgeState, repo: RepoRecord, body: dict[str, Any]) -> Ruleset:
    for key in ("name", "enforcement"):
        if key not in body:
            raise invalid_request(f'"{key}" wasn\'t supplied.')
    ruleset = Ruleset(id=0, name="", target="branch", enforcement="disabled")
    apply_body(ruleset, body)
    with state.lock:
        _unique_name(repo, ruleset)
        ruleset.id = next(_IDS)
        rulesets(repo)[ruleset.id] = ruleset
    return ruleset


def update_ruleset(
    state: ForgeState, repo: RepoRecord, ruleset: Ruleset, body: dict[str, Any]
) -> Ruleset:
    draft = Ruleset(**{**ruleset.__dict__})
    apply_body(draft, body)
    with state.lock:
        _unique_name(repo, draft)
        ruleset.__dict__.update(draft.__dict__)
    return ruleset


def delete_ruleset(state: ForgeState, repo: RepoRecord, ruleset_id: int) -> bool:
    with state.lock:
        return rulesets(repo).pop(ruleset_id, None) is not None


def add_ruleset(
    repo: RepoRecord,
    name: str,
    rules: list[dict[str, Any]],
    include: list[str] | None = None,
    exclude: list[str] | None = None,
    enforcement: str = "active",
) -> Ruleset:
    """A repository-level branch ruleset without a request (the tests' and the demo's way
    to set one): on the default branch unless include says otherwise."""
    ruleset = Ruleset(
        next(_IDS), name, "branch", enforcement, include or ["~DEFAULT_BRANCH"],
        exclude or [], [dict(r) for r in rules],
    )  # fmt: skip
    rulesets(repo)[ruleset.id] = ruleset
    return ruleset
