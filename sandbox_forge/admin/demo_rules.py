"""The demo's repository rules: a ruleset on octo-org/demo-app's `release/*` branches, so
`make run` shows rules that the forge enforces (main keeps its classic protection, and
the demo's flows that write to main are unaffected).

Release branches can be created, but not deleted or force-pushed; every commit they gain
must be verified (the forge signs web-flow commits: createCommitOnBranch, merges), and
changes reach them through pull requests with one approving review.
"""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, repo_named
from sandbox_forge.stores.rulesets import add_ruleset

DEMO_REPO = "octo-org/demo-app"
RELEASE_RULES: list[dict[str, Any]] = [
    {"type": "deletion"},
    {"type": "non_fast_forward"},
    {"type": "required_signatures"},
    {
        "type": "pull_request",
        "parameters": {
            "required_approving_review_count": 1,
            "dismiss_stale_reviews_on_push": False,
            "require_code_owner_review": False,
            "require_last_push_approval": False,
            "required_review_thread_resolution": False,
        },
    },
]


def seed_demo_rules(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    ruleset = add_ruleset(
        repo_named(forge, full_name), "release branches", RELEASE_RULES, ["refs/heads/release/*"]
    )
    return {"id": ruleset.id, "name": ruleset.name, "include": list(ruleset.include)}
