"""In-process helpers for collaboration data (they mirror the /_sandbox/ admin routes in
admin/collab_routes.py), and `seed_demo_collab`, which turns octo-org/demo-app into a realistic
review: a conflicting PR with failing CI and review threads, a PR stacked on it, issues
(one hiding an instruction in invisible characters), checks, statuses and protection.

Every helper takes the Forge (or its ForgeState) first and a repository's full name.

The helpers live in collab_seeding.py, the demo in demo_collab.py and its texts in
demo_collab_data.py; this module gathers their public names.
"""

from __future__ import annotations

from sandbox_forge.admin.collab_seeding import (
    add_check_run,
    add_issue_comment,
    add_review,
    add_review_thread,
    add_status,
    add_workflow,
    add_workflow_run,
    clear_branch_protection,
    complete_workflow_run,
    create_issue,
    create_pull,
    pull_conflicts,
    resolve_review_thread,
    set_branch_protection,
    set_mergeability_delay,
)
from sandbox_forge.admin.demo_collab import DEMO_REPO, seed_demo_collab
from sandbox_forge.admin.demo_collab_data import (
    CALC_FEATURE,
    CALC_MAIN,
    CART_JS_FALLBACK,
    CI_WORKFLOW,
    DISCOUNT_JS,
    DISCOUNT_TEST,
    FIXTURES,
    INVENTORY_TEST_FALLBACK,
    JEST_FALLBACK,
    JS_STEPS,
    LINT_STEPS,
    PYTHON_STEPS,
    RELEASE_WORKFLOW,
    RUNNER_DIR,
)

__all__ = [
    "CALC_FEATURE",
    "CALC_MAIN",
    "CART_JS_FALLBACK",
    "CI_WORKFLOW",
    "DEMO_REPO",
    "DISCOUNT_JS",
    "DISCOUNT_TEST",
    "FIXTURES",
    "INVENTORY_TEST_FALLBACK",
    "JEST_FALLBACK",
    "JS_STEPS",
    "LINT_STEPS",
    "PYTHON_STEPS",
    "RELEASE_WORKFLOW",
    "RUNNER_DIR",
    "add_check_run",
    "add_issue_comment",
    "add_review",
    "add_review_thread",
    "add_status",
    "add_workflow",
    "add_workflow_run",
    "clear_branch_protection",
    "complete_workflow_run",
    "create_issue",
    "create_pull",
    "pull_conflicts",
    "resolve_review_thread",
    "seed_demo_collab",
    "set_branch_protection",
    "set_mergeability_delay",
]
