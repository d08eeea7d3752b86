"""Pull requests: reading and opening them, merge readiness, conflicts, review threads
and stacked pull requests.

The modules behind this face are private; import from the package. The face also holds
what the pulls tools need from other domains' services (a pull request is commented and
labelled as an issue; its failing checks are Actions' records), so a tool imports only
its own domain's service.
"""

from __future__ import annotations

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
