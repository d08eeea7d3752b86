"""Pull requests: reading and opening them, merge readiness, conflicts, review threads
and stacked pull requests.

The modules behind this face are private; import from the package. The face also holds
what the pulls tools need from other domains' services (a pull request is commented and
labelled as an issue; its failing checks are Actions' records), so a tool imports only
its own domain's service.

The face is lazy: a name is imported from its module on first use, so a call that needs
one of them (the writes tools open a pull request) does not import the conflict checker's
workspace or Actions' log parsers. The imports below are the face for type checkers and
the import contracts; `_HOMES` is the same table at run time (a test holds them equal).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from github_mcp.services.actions import CheckCountsOut, FailedJob
    from github_mcp.services.issues import issue_views
    from github_mcp.services.pulls._automation import pr_label, pull_reviews
    from github_mcp.services.pulls._comments import UnresolvedComments, unresolved_comments
    from github_mcp.services.pulls._conflicts import MergeConflicts, detect_conflicts
    from github_mcp.services.pulls._failing import FailingTestsPage, failing_tests
    from github_mcp.services.pulls._overview import PullOverview, pull_overview
    from github_mcp.services.pulls._readiness import check_readiness
    from github_mcp.services.pulls._reconcile import PullMerge
    from github_mcp.services.pulls._service import (
        PullRequestRef,
        ReviewRef,
        compact_pr,
        create_review,
        find_open_pr,
        get_pull,
        list_pulls,
        merge_pull,
        open_pull_request,
        update_pull,
    )
    from github_mcp.services.pulls._stack import (
        StackRun,
        execute_stack,
        manage_stack,
        plan_stack,
        stack_refs,
        stack_state,
    )
    from github_mcp.services.pulls._threads import (
        ThreadReply,
        reply_in_thread,
        reply_to_thread,
        resolve_thread,
        set_thread_resolved,
        thread_resolution_in_pull,
    )
    from github_mcp.services.pulls._views import (
        PrComments,
        PrDiff,
        PrOverview,
        pr_comments,
        pr_diff,
        pr_overview,
    )

_HOMES = {
    "CheckCountsOut": "github_mcp.services.actions",
    "FailedJob": "github_mcp.services.actions",
    "issue_views": "github_mcp.services.issues.issue_views",  # a module
    "pr_label": "github_mcp.services.pulls._automation",
    "pull_reviews": "github_mcp.services.pulls._automation",
    "UnresolvedComments": "github_mcp.services.pulls._comments",
    "unresolved_comments": "github_mcp.services.pulls._comments",
    "MergeConflicts": "github_mcp.services.pulls._conflicts",
    "detect_conflicts": "github_mcp.services.pulls._conflicts",
    "FailingTestsPage": "github_mcp.services.pulls._failing",
    "failing_tests": "github_mcp.services.pulls._failing",
    "PullOverview": "github_mcp.services.pulls._overview",
    "pull_overview": "github_mcp.services.pulls._overview",
    "check_readiness": "github_mcp.services.pulls._readiness",
    "PullMerge": "github_mcp.services.pulls._reconcile",
    "PullRequestRef": "github_mcp.services.pulls._service",
    "ReviewRef": "github_mcp.services.pulls._service",
    "compact_pr": "github_mcp.services.pulls._service",
    "create_review": "github_mcp.services.pulls._service",
    "find_open_pr": "github_mcp.services.pulls._service",
    "get_pull": "github_mcp.services.pulls._service",
    "list_pulls": "github_mcp.services.pulls._service",
    "merge_pull": "github_mcp.services.pulls._service",
    "open_pull_request": "github_mcp.services.pulls._service",
    "update_pull": "github_mcp.services.pulls._service",
    "StackRun": "github_mcp.services.pulls._stack",
    "execute_stack": "github_mcp.services.pulls._stack",
    "manage_stack": "github_mcp.services.pulls._stack",
    "plan_stack": "github_mcp.services.pulls._stack",
    "stack_refs": "github_mcp.services.pulls._stack",
    "stack_state": "github_mcp.services.pulls._stack",
    "ThreadReply": "github_mcp.services.pulls._threads",
    "reply_in_thread": "github_mcp.services.pulls._threads",
    "reply_to_thread": "github_mcp.services.pulls._threads",
    "resolve_thread": "github_mcp.services.pulls._threads",
    "set_thread_resolved": "github_mcp.services.pulls._threads",
    "thread_resolution_in_pull": "github_mcp.services.pulls._threads",
    "PrComments": "github_mcp.services.pulls._views",
    "PrDiff": "github_mcp.services.pulls._views",
    "PrOverview": "github_mcp.services.pulls._views",
    "pr_comments": "github_mcp.services.pulls._views",
    "pr_diff": "github_mcp.services.pulls._views",
    "pr_overview": "github_mcp.services.pulls._views",
}


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module = importlib.import_module(home)
    value = module if module.__name__.endswith("." + name) else getattr(module, name)
    globals()[name] = value
    return value


__all__ = [
    "CheckCountsOut",
    "FailedJob",
    "FailingTestsPage",
    "MergeConflicts",
    "PrComments",
    "PrDiff",
    "PrOverview",
    "PullMerge",
    "PullOverview",
    "PullRequestRef",
    "ReviewRef",
    "StackRun",
    "ThreadReply",
    "UnresolvedComments",
    "check_readiness",
    "compact_pr",
    "create_review",
    "detect_conflicts",
    "execute_stack",
    "failing_tests",
    "find_open_pr",
    "get_pull",
    "issue_views",
    "list_pulls",
    "manage_stack",
    "merge_pull",
    "open_pull_request",
    "plan_stack",
    "pr_comments",
    "pr_diff",
    "pr_label",
    "pr_overview",
    "pull_overview",
    "pull_reviews",
    "reply_in_thread",
    "reply_to_thread",
    "resolve_thread",
    "set_thread_resolved",
    "stack_refs",
    "stack_state",
    "thread_resolution_in_pull",
    "unresolved_comments",
    "update_pull",
]
