"""What repository rules say about one ref moving from old to new (None: absent).

Every path that moves a ref (REST refs, the contents API, merges, update-branch, GraphQL
createCommitOnBranch and git push) asks `check_update` before it moves the ref, and turns
the violations into its own GitHub-shaped refusal. Rulesets give GitHub's ruleset messages
("Cannot force-push to this branch"), classic branch protection its own ("Cannot force-push
to this protected branch"). Classic required reviews and status checks are enforced on
merges only (see protection.evaluate), not on direct updates.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.git.objects import forge_signed, parse_commit
from sandbox_forge.git.store import CommitInfo, GitError, GitRepo
from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.stores.access import at_least
from sandbox_forge.stores.checks import check_states
from sandbox_forge.stores.collab import Protection, collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.rulesets import Ruleset, rules_for_ref

RULE_VIOLATIONS = "Repository rule violations found"
FRESH_LIMIT = 1000  # commits a single update may bring; GitHub caps push evaluation too

MESSAGES = {
    "creation": "Cannot create ref due to creations being restricted.",
    "update": "Cannot update this protected ref.",
    "deletion": "Cannot delete this branch",
    "non_fast_forward": "Cannot force-push to this branch",
    "required_signatures": "Commits must have verified signatures.",
    "pull_request": "Changes must be made through a pull request.",
    "required_linear_history": "This branch must not contain merge commits.",
}
PROTECTED = {
    "deletion": "Cannot delete a protected branch",
    "non_fast_forward": "Cannot force-push to this protected branch",
    "required_signatures": "Commits must have verified signatures.",
    "required_linear_history": "This branch must not contain merge commits.",
}


class RefGit:
    """The git questions rules ask, optionally inside a push's quarantine (env)."""

    def __init__(self, git: GitRepo, env: Mapping[str, str] | None = None):
        self.git, self.env = git, dict(env or {})

    def is_ancestor(self, old: str, new: str) -> bool:
        try:
            self.git.run("merge-base", "--is-ancestor", old, new, env=self.env)
        except GitError:
            return False
        return True

    def fresh(self, new: str, base: str | None = None) -> list[str]:
        """Commits new brings that no ref of the repository has yet (with base: that base
        lacks, as a merge brings a pull request's commits into its base)."""
        exclude = [f"^{base}"] if base else ["--not", "--all"]
        out = self.git.run("rev-list", f"--max-count={FRESH_LIMIT}", new, *exclude, env=self.env)
        return out.decode().split()

    def commits(self, shas: list[str]) -> list[CommitInfo]:
        if not shas:
            return []
        out = self.git.run(
            "cat-file", "--batch", input=("\n".join(shas) + "\n").encode(), env=self.env
        )
        infos, pos = [], 0
        for _ in shas:
            eol = out.index(b"\n", pos)
            sha, kind, size = out[pos:eol].decode().split()
            if kind == "commit":
                infos.append(parse_commit(sha, out[eol + 1 : eol + 1 + int(size)]))
            pos = eol + 1 + int(size) + 1
        return infos


@dataclass
class Violations:
    ref: str
    rules: list[str] = field(default_factory=list)  # ruleset messages
    protection: list[str] = field(default_factory=list)  # classic protection messages
    unsigned: list[str] = field(default_factory=list)  # commits failing required_signatures

    def __bool__(self) -> bool:
        return bool(self.rules or self.protection)


@dataclass
class _Update:
    repo: RepoRecord
    ref: str
    old: str | None
    new: str | None
    git: RefGit
    via: str
    _fresh: list[CommitInfo] | None = None

    def fresh(self) -> list[CommitInfo]:
        if self._fresh is None:
            base = self.old if self.via == "merge" else None
            shas = [] if self.new is None else self.git.fresh(self.new, base)
            self._fresh = self.git.commits(shas)
        return self._fresh

    def forced(self) -> bool:
        return bool(self.old and self.new) and not self.git.is_ancestor(self.old, self.new)  # type: ignore[arg-type]

    def unsigned(self) -> list[str]:
        return [info.sha for info in self.fresh() if not forge_signed(info)]

    def merges(self) -> bool:
        return any(len(info.parents) > 1 for info in self.fresh())


def required_checks_reason(required: list[str], states: dict[str, str]) -> str | None:
    """GitHub's wording for required status checks that have not succeeded on a commit."""
    expected = [c for c in required if states.get(c, "pending") == "pending"]
    failing = [c for c in required if states.get(c) == "failure"]
    if not expected and not failing:
        return None
    if len(expected) + len(failing) == 1:
        name = (expected or failing)[0]
        return f'Required status check "{name}" is {"expected" if expected else "failing"}.'
    total, bad = len(required), len(expected) + len(failing)
    if not failing:
        return f"{bad} of {total} required status checks are expected."
    if not expected:
        return f"{bad} of {total} required status checks are failing."
    return (
        f"{bad} of {total} required status checks have not succeeded: "
        f"{len(expected)} expected and {len(failing)} failing."
    )


def status_check_names(rule: dict[str, Any]) -> list[str]:
    params = rule.get("parameters") or {}
    return [
        item["context"]
        for item in params.get("required_status_checks") or []
        if isinstance(item, dict) and isinstance(item.get("context"), str)
    ]


def _rule_message(rule: dict[str, Any], up: _Update, via: str) -> str | None:
    kind, creating, deleting = rule["type"], up.old is None, up.new is None
    if kind == "creation" and creating:
        return MESSAGES[kind]
    if kind == "deletion" and deleting:
        return MESSAGES[kind]
    if kind == "update" and not creating and not deleting and via != "merge":
        return MESSAGES[kind]
    if kind == "non_fast_forward" and up.forced():
        return MESSAGES[kind]
    if kind == "required_signatures" and not deleting and up.unsigned():
        return MESSAGES[kind]
    if kind == "required_linear_history" and not deleting and up.merges():
        return MESSAGES[kind]
    # A merge answers pull_request and status checks on the pull request (merge_reasons).
    if kind == "pull_request" and not creating and not deleting and via != "merge":
        return MESSAGES[kind]
    if kind == "required_status_checks" and not deleting and via != "merge":
        if creating and (rule.get("parameters") or {}).get("do_not_enforce_on_create"):
            return None
        assert up.new is not None
        return required_checks_reason(status_check_names(rule), check_states(up.repo, up.new))
    return None


def _protection_messages(prot: Protection, up: _Update, role: str | None) -> list[str]:
    if at_least(role, "admin") and not prot.enforce_admins:
        return []  # classic protection lets admins through unless it is enforced for them
    found = []
    if up.new is None and not prot.allow_deletions:
        found.append(PROTECTED["deletion"])
    if up.new is not None and not prot.allow_force_pushes and up.forced():
        found.append(PROTECTED["non_fast_forward"])
    if up.new is not None and prot.required_signatures and up.unsigned():
        found.append(PROTECTED["required_signatures"])
    if up.new is not None and prot.required_linear_history and up.merges():
        found.append(PROTECTED["required_linear_history"])
    return found


def _bypassed(ruleset: Ruleset, role: str | None) -> bool:
    return ruleset.admin_bypass() and at_least(role, "admin")


def check_update(
    repo: RepoRecord,
    ref: str,
    old: str | None,
    new: str | None,
    role: str | None,
    *,
    via: str = "api",
    env: Mapping[str, str] | None = None,
) -> Violations:
    """The rules ref moving old -> new breaks, for an actor of role. via: "api", "merge"
    (the pull request's own rules are checked apart) or "push"; env: a push's quarantine."""
    found = Violations(ref)
    up = _Update(repo, ref, old, new, RefGit(repo.git, env), via)
    for ruleset, rule in rules_for_ref(repo, ref):
        if _bypassed(ruleset, role):
            continue
        message = _rule_message(rule, up, via)
        if message and message not in found.rules:
            found.rules.append(message)
    prot = collab(repo).protection.get(ref.removeprefix("refs/heads/"))
    if prot is not None and ref.startswith("refs/heads/"):
        found.protection = _protection_messages(prot, up, role)
    if found and (
        MESSAGES["required_signatures"] in found.rules
        or PROTECTED["required_signatures"] in found.protection
    ):
        found.unsigned = up.unsigned()
    return found


# --- refusals in GitHub's shapes ------------------------------------------------------------


def rules_message(messages: list[str]) -> str:
    return RULE_VIOLATIONS + "\n\n" + "".join(f"{m}\n\n" for m in messages)


def refusal(found: Violations, status: int, docs: str) -> ApiError:
    """A REST refusal: rulesets' "Repository rule violations found" (GitHub's 409 on the
    contents API, 422 on refs, 405 on merges), else classic protection's message."""
    if found.rules:
        return ApiError(status, rules_message(found.rules), documentation_url=docs)
    reasons = "".join(f"\n\n{m}" for m in found.protection)
    return ApiError(
        status, f"Protected branch update failed for {found.ref}.{reasons}", documentation_url=docs
    )


def refuse_if(found: Violations, status: int, docs: str) -> None:
    if found:
        raise refusal(found, status, docs)
