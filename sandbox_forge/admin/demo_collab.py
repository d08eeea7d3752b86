"""`seed_demo_collab`: turns octo-org/demo-app (made by seed.seed_demo) into a realistic
review: a conflicting PR with failing CI and review threads, a PR stacked on it, issues
(one hiding an instruction in invisible characters), checks, statuses and protection."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandbox_forge.admin.collab_seeding import (
    ForgeTarget,
    add_review_thread,
    commit_sha,
    forge_state,
    repo_named,
    run_summary,
)
from sandbox_forge.admin.demo_collab_data import (
    CALC_FEATURE,
    CALC_MAIN,
    CART_JS_FALLBACK,
    CI_WORKFLOW,
    DISCOUNT_JS,
    DISCOUNT_TEST,
    INVENTORY_TEST_FALLBACK,
    RELEASE_WORKFLOW,
    ci_job_logs,
    ci_jobs,
    fixture,
    hidden_instruction_body,
    jest_output,
    pytest_output,
    running_ci_jobs,
)
from sandbox_forge.admin.seeding import write_commit
from sandbox_forge.rules import protection as rules_protection
from sandbox_forge.stores import (
    actions as actions_store,
)
from sandbox_forge.stores import (
    checks as checks_store,
)
from sandbox_forge.stores import (
    issues as issues_store,
)
from sandbox_forge.stores import (
    pulls as pulls_store,
)
from sandbox_forge.stores.collab import Issue, Run, collab
from sandbox_forge.stores.lookups import node_id
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.reviews import add_review, reply
from sandbox_forge.stores.state import ForgeState

DEMO_REPO = "octo-org/demo-app"


def _line_of(text: str, needle: str) -> int:
    return next(i for i, line in enumerate(text.split("\n"), start=1) if needle in line)


def _commit(
    st: ForgeState,
    repo: RepoRecord,
    branch: str,
    files: dict[str, Any],
    parent: str,
    message: str,
    when: int,
) -> str:
    ref = f"refs/heads/{branch}"
    old = repo.git.read_ref(ref)
    sha = write_commit(repo.git, ref, files, parent, message, when)
    st.fire_ref_update(RefUpdate(repo.full_name, ref, old, sha, "seed"))
    return sha


@dataclass
class _Demo:
    """The repository being seeded, and what each step made that a later one builds on."""

    st: ForgeState
    repo: RepoRecord
    full_name: str
    main: str
    feature: str = "feature/cart-and-inventory"
    stacked: str = "feature/cart-discounts"
    inventory: str = ""  # the feature branch's test file, which a review comments on
    main_tip: str = ""
    head1: str = ""
    head2: str = ""
    pr1: Issue | None = None
    pr2: Issue | None = None

    @property
    def pulls(self) -> tuple[Issue, Issue]:
        assert self.pr1 is not None and self.pr2 is not None
        return self.pr1, self.pr2


def seed_demo_collab(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    """Add the collaboration demo to full_name (created by seed.seed_demo). Returns what was
    made: PR numbers, branches, thread ids, run and job ids, issue numbers."""
    st = forge_state(forge)
    repo = repo_named(forge, full_name)
    _add_users(st)
    demo = _Demo(st, repo, full_name, repo.default_branch)
    # The order matters: issue, comment, review and run ids are handed out as things are made.
    _commit_branches(demo)
    _open_pulls(demo)
    issues, hidden_texts = _file_issues(demo)
    threads = _review_first_pull(demo)
    runs = _run_ci(demo)
    _protect_main(demo)
    summary = _summary(demo, issues, hidden_texts, threads, runs)
    st.extensions["collab_demo"] = summary
    return summary


def _add_users(st: ForgeState) -> None:
    for login, name in (
        ("alice", "Alice Liddell"),
        ("bob", "Bob Builder"),
        ("carol", "Carol Danvers"),
        ("octocat", "The Octocat"),
    ):
        st.ensure_user(login, name=name)


def _commit_branches(demo: _Demo) -> None:
    """Workflows on main, then the feature branch (three commits), a conflicting change on
    main, and the stacked branch on the feature's head."""
    st, repo, main, feature = demo.st, demo.repo, demo.main, demo.feature
    base = commit_sha(repo, main)
    when = repo.git.read_commit(base).committer.timestamp + 3600
    workflows = {
        ".github/workflows/ci.yml": CI_WORKFLOW,
        ".github/workflows/release.yml": RELEASE_WORKFLOW,
    }
    workflows_sha = _commit(st, repo, main, workflows, base, "Add CI and release workflows", when)
    demo.inventory = fixture("test_inventory.py.txt") or INVENTORY_TEST_FALLBACK
    f1 = _commit(
        st, repo, feature, {"tests/test_inventory.py": demo.inventory}, workflows_sha,
        "Add inventory restocking with tests", when + 600,
    )  # fmt: skip
    jest_files = {
        "web/src/cart.js": fixture("cart.js") or CART_JS_FALLBACK,
    }
    for name in ("cart.test.js", "format.test.js"):
        text = fixture(name)
        if text is not None:
            jest_files[f"web/src/__tests__/{name}"] = text
    f2 = _commit(
        st, repo, feature, jest_files, f1, "Add a cart module with jest tests", when + 1200
    )
    demo.head1 = _commit(
        st, repo, feature, {"src/demo_app/calc.py": CALC_FEATURE}, f2,
        "Round division results to cents", when + 1800,
    )  # fmt: skip
    demo.main_tip = _commit(
        st, repo, main, {"src/demo_app/calc.py": CALC_MAIN}, workflows_sha,
        "Use true division in divide", when + 2400,
    )  # fmt: skip
    discount = {
        "web/src/discount.js": DISCOUNT_JS,
        "web/src/__tests__/discount.test.js": DISCOUNT_TEST,
    }
    demo.head2 = _commit(
        st, repo, demo.stacked, discount, demo.head1,
        "Add percentage discounts to the cart", when + 3000,
    )  # fmt: skip


def _open_pulls(demo: _Demo) -> None:
    """PR #1 (feature into main) and PR #2 stacked on it."""
    st, repo = demo.st, demo.repo
    demo.pr1 = pulls_store.create_pull(
        st,
        repo,
        "alice",
        "Add cart and inventory modules",
        demo.feature,
        demo.main,
        "Adds inventory restocking and a cart module, each with tests.\n\n"
        "Also rounds `divide` results to cents for the cart totals.",
    )
    demo.pr2 = pulls_store.create_pull(
        st,
        repo,
        "alice",
        "Cart: percentage discounts",
        demo.stacked,
        demo.feature,
        f"Stacked on #{demo.pr1.number}: merge that first.\n\nAdds `applyDiscount`.",
    )
    assert demo.pr1.pull is not None and demo.pr2.pull is not None


def _file_issues(demo: _Demo) -> tuple[dict[str, int], list[str]]:
    """A bug fixed on main, an open enhancement, a closed docs issue, and one that hides
    instructions in invisible characters (for sanitising tests); their numbers, and the
    hidden texts."""
    st, repo = demo.st, demo.repo
    pr1, _ = demo.pulls
    bug = issues_store.create_issue(
        st,
        repo,
        "carol",
        "divide() returns 3 for divide(7, 2)",
        "`divide(7, 2)` should be `3.5` but returns `3`; `tests/test_calc.py::test_divide` fails.",
        ["bug"],
    )
    feature_issue = issues_store.create_issue(
        st,
        repo,
        "bob",
        "Add a multiply function",
        "The calculator needs `multiply(a, b)`.",
        ["enhancement"],
        ["octocat"],
    )
    docs_issue = issues_store.create_issue(
        st,
        repo,
        "alice",
        "README: document the web/ tests",
        "Mention `npm test` in web/.",
        ["documentation"],
    )
    with st.lock:
        issues_store.set_state(docs_issue, "closed", "alice", "completed")
    hidden_body, hidden_texts = hidden_instruction_body()
    hidden = issues_store.create_issue(
        st, repo, "mallory", "Export button does nothing in Safari", hidden_body, ["bug"]
    )
    issues_store.add_comment(
        st, repo, bug, "octocat", f"Fixed on main by {demo.main_tip[:7]} (true division)."
    )
    with st.lock:
        issues_store.set_state(bug, "closed", "octocat", "completed")
    issues_store.add_comment(
        st, repo, pr1, "octocat", "CI is red on both test suites, and this now conflicts with main."
    )
    numbers = {
        "bug": bug.number,
        "enhancement": feature_issue.number,
        "closed": docs_issue.number,
        "hidden_instruction": hidden.number,
    }
    return numbers, hidden_texts


def _review_first_pull(demo: _Demo) -> dict[str, list[str]]:
    """Bob's review on PR #1 with two unresolved threads (one answered), and carol's thread,
    resolved; the thread node ids."""
    st, repo = demo.st, demo.repo
    pr1, _ = demo.pulls
    review = add_review(
        st,
        repo,
        pr1,
        "bob",
        "REQUEST_CHANGES",
        "A couple of things before this goes in.",
        [
            {
                "path": "tests/test_inventory.py",
                "line": _line_of(demo.inventory, "assert restock(stock"),
                "side": "RIGHT",
                "body": "`restock` adds `count` once, so `apple` ends at 2 here. "
                "Is the test wrong, or the function?",
            },
            {
                "path": "web/src/cart.js",
                "line": 2,
                "side": "RIGHT",
                "body": "`count` is taken before the item is added, so it is off by one.",
            },
        ],
    )
    data = collab(repo)
    bob_comments = sorted(
        (c for c in data.review_comments.values() if c.review_id == review.id), key=lambda c: c.id
    )
    reply(
        st,
        repo,
        pr1,
        "alice",
        "Good catch: the expectation is wrong, I will fix the test.",
        bob_comments[0],
    )
    carol = add_review_thread(
        st,
        demo.full_name,
        pr1.number,
        "src/demo_app/calc.py",
        _line_of(CALC_FEATURE, "round("),
        "Rounding here loses precision for every caller, not just the cart.",
        user="carol",
        replies=[{"user": "alice", "body": "Fair: I will round in the cart instead."}],
        resolved=True,
        resolved_by="alice",
    )
    threads = [node_id("PRRT", repo, c.thread_id) for c in bob_comments]
    return {"unresolved": threads, "resolved": [carol["thread_id"]]}


def _run_ci(demo: _Demo) -> dict[str, Run]:
    """CI green on main, red on PR #1 (pytest and jest), still running on PR #2; and two
    commit statuses on PR #1's head."""
    st, repo = demo.st, demo.repo
    pr1, pr2 = demo.pulls
    workflow = actions_store.find_workflow(st, repo, "ci.yml")
    assert workflow is not None
    pytest_out, jest_out = pytest_output(), jest_output()
    green = ci_job_logs(demo.full_name, None, None)
    red = ci_job_logs(demo.full_name, pytest_out, jest_out)
    main_run = actions_store.add_workflow_run(
        st, repo, workflow, demo.main_tip, demo.main, event="push", actor="octocat",
        jobs=ci_jobs(green, failing=False),
    )  # fmt: skip
    pr1_run = actions_store.add_workflow_run(
        st, repo, workflow, demo.head1, demo.feature, event="pull_request", actor="alice",
        display_title=pr1.title, jobs=ci_jobs(red, failing=True),
    )  # fmt: skip
    pr2_run = actions_store.add_workflow_run(
        st, repo, workflow, demo.head2, demo.stacked, event="pull_request", actor="alice",
        display_title=pr2.title, status="in_progress", jobs=running_ci_jobs(),
    )  # fmt: skip
    checks_store.add_status(
        st, repo, demo.head1, "failure", "codecov/patch", "octocat",
        "60.00% of diff hit (target 80.00%)", "https://codecov.io/gh/octo-org/demo-app/pull/1",
    )  # fmt: skip
    checks_store.add_status(
        st, repo, demo.head1, "success", "deploy/preview", "octocat", "Preview ready",
        "https://preview.sandbox.invalid/demo-app/pr-1",
    )  # fmt: skip
    return {"main": main_run, "pr1": pr1_run, "pr2": pr2_run}


def _protect_main(demo: _Demo) -> None:
    rules_protection.set_protection(
        demo.st,
        demo.repo,
        demo.main,
        {
            "required_status_checks": {
                "strict": False,
                "contexts": ["test-python", "test-js", "lint"],
            },
            "required_pull_request_reviews": {"required_approving_review_count": 1},
            "enforce_admins": True,
        },
    )


def _summary(
    demo: _Demo,
    issues: dict[str, int],
    hidden_texts: list[str],
    threads: dict[str, list[str]],
    runs: dict[str, Run],
) -> dict[str, Any]:
    pr1, pr2 = demo.pulls
    main, feature, stacked = demo.main, demo.feature, demo.stacked
    return {
        "repo": demo.full_name,
        "branches": {"main": main, "feature": feature, "stacked": stacked},
        "main_sha": demo.main_tip,
        "pulls": {
            "conflicting": {
                "number": pr1.number,
                "head": feature,
                "base": main,
                "head_sha": demo.head1,
                "conflicts": ["src/demo_app/calc.py"],
            },
            "stacked": {
                "number": pr2.number,
                "head": stacked,
                "base": feature,
                "head_sha": demo.head2,
            },
        },
        "threads": threads,
        "issues": issues,
        "hidden_texts": hidden_texts,
        "workflows": {w.path: w.id for w in actions_store.workflows(demo.st, demo.repo)},
        "runs": {name: run_summary(demo.repo, run) for name, run in runs.items()},
        "statuses": {"codecov/patch": "failure", "deploy/preview": "success"},
        "protection": {
            "branch": main,
            "required_approvals": 1,
            "required_checks": ["test-python", "test-js", "lint"],
        },
    }
