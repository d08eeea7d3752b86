"""The parity table's rows: each tool of the official GitHub MCP server and ours for it."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Parity:
    official: str
    ours: tuple[str, ...] = ()
    adds: str = ""  # what ours adds
    not_offered: str = ""  # why this server will not offer it (only ui_get)


ISSUE_FIELDS = "one call for title, body, state, labels, assignees and milestone"
NOT_YET = "not yet"
COPILOT = "assign_copilot_to_issue"
REACTION_TOOLS = ("add_reaction", "list_reactions")
REACTIONS_ADD = "one tool for issues, PRs and comments; list_reactions groups who reacted with what"
NOT_OFFERED = "not offered"

ROWS: tuple[Parity, ...] = (
    Parity(
        "actions_get",
        ("get_workflow_run_overview", "get_latest_branch_status"),
        "a run with its jobs and each failed step in one call; a branch's checks at a glance",
    ),
    Parity(
        "actions_list",
        ("list_workflow_runs",),
        "filters by workflow, branch, status, head SHA or event",
    ),
    Parity(
        "actions_run_trigger",
        ("trigger_workflow_dispatch", "rerun_failed_jobs"),
        "gated by the branch the run is for",
    ),
    Parity(
        "add_comment_to_pending_review",
        ("pending_pr_review", "create_pr_review"),
        "several single- or multi-line comments, either side, in one call",
    ),
    Parity(
        "add_issue_comment",
        ("comment_on_issue", "comment_on_pull_request"),
        "a comment whose answer was lost is found rather than posted twice",
    ),
    Parity("add_issue_comment_reaction", REACTION_TOOLS, REACTIONS_ADD),
    Parity("add_issue_reaction", REACTION_TOOLS, REACTIONS_ADD),
    Parity(
        "add_pull_request_review_comment",
        ("create_pr_review",),
        "line comments anchored to the diff, checked before the review is sent",
    ),
    Parity("add_pull_request_review_comment_reaction", REACTION_TOOLS, REACTIONS_ADD),
    Parity(
        "add_reply_to_pull_request_comment",
        ("reply_to_review_thread",),
        "replies by thread, as find_unresolved_comments lists them",
    ),
    Parity(
        "add_sub_issue",
        ("change_sub_issue", "list_sub_issues"),
        "answers with the new order; numbers, not ids",
    ),
    Parity("assign_copilot_to_issue", (COPILOT,), "checks first that Copilot is assignable"),
    Parity("assign_copilot_to_issue_with_intent", (COPILOT,), "a suggestion starts nothing"),
    Parity(
        "create_branch",
        ("create_branch",),
        "idempotent when the branch already points at the same commit; look-alike names refused",
    ),
    Parity(
        "create_gist",
        ("create_gist",),
        "secret unless public=true; an unscoped write a human approves",
    ),
    Parity("create_issue", ("create_issue",), "gated as an unscoped write"),
    Parity(
        "create_or_update_file",
        (
            "apply_patch_and_commit",
            "apply_text_update_and_commit",
            "update_file_sections_and_commit",
        ),
        "edits by patch or line range, verified blob by blob before the branch moves",
    ),
    Parity(
        "create_pull_request",
        ("create_pull_request", "update_files_and_open_pr"),
        "returns the open PR if one exists; commit and open in one call",
    ),
    Parity(
        "create_pull_request_review",
        ("create_pr_review",),
        "COMMENT, APPROVE or REQUEST_CHANGES with line comments in one call",
    ),
    Parity(
        "create_repository",
        ("create_repository",),
        "private unless asked otherwise; the name must be on the allow-list",
    ),
    Parity("delete_file", ("delete_file",), "a verified commit, gated by its branch"),
    Parity(
        "delete_pending_pull_request_review",
        ("pending_pr_review",),
        "one tool starts, submits and deletes a pending review; its comments go with it",
    ),
    Parity(
        "delete_repository",
        ("delete_repository",),
        "off unless GITHUB_MCP_ALLOW_REPO_DELETE=true; the approval is bound to the "
        "repository's id and head",
    ),
    Parity(
        "discussion_comment_write",
        ("add_discussion_comment",),
        "comments and replies, gated as an unscoped write like an issue comment",
    ),
    Parity(
        "dismiss_notification",
        ("dismiss_notification",),
        "read or done; the thread's repository must be in the allow-list",
    ),
    Parity(
        "find_duplicate",
        ("find_duplicate_issues",),
        "ranked by shared keywords; from an issue number or a draft title",
    ),
    Parity(
        "fork_repository",
        ("fork_repository",),
        "the destination must be on the allow-list and free; forking again answers the "
        "existing fork",
    ),
    Parity("get_code_quality_finding", ("get_code_quality_finding",), "compact; a listing too"),
    Parity(
        "get_code_scanning_alert",
        ("get_security_alert",),
        "kind=code_scanning: the location and the rule's help text",
    ),
    Parity(
        "get_commit",
        ("get_commit",),
        "stats and changed files; patches opt-in and byte-capped",
    ),
    Parity(
        "get_dependabot_alert",
        ("get_security_alert",),
        "kind=dependabot: vulnerable range, patched version, manifest, GHSA and CVE",
    ),
    Parity(
        "get_discussion",
        ("get_discussion",),
        "with its accepted answer; body cleaned and capped",
    ),
    Parity(
        "get_discussion_comments",
        ("get_discussion_comments",),
        "each comment with its first replies and which one is the answer",
    ),
    Parity(
        "get_file_blame",
        ("get_file_blame",),
        "adjacent lines of one commit as one range, each commit listed once, a line window",
    ),
    Parity(
        "get_file_contents",
        ("get_file_contents", "get_file_slice", "fetch_files"),
        "line slices, up to 30 files per call, cut on character boundaries",
    ),
    Parity("get_gist", ("get_gist",), "each file's content capped"),
    Parity(
        "get_global_security_advisory",
        ("list_global_advisories",),
        "by ghsa_id or cve_id, with the affected packages",
    ),
    Parity(
        "get_job_logs",
        ("get_job_logs", "get_failing_tests"),
        "narrowed to failed steps, a pattern or the tail; failing tests parsed with their rerun",
    ),
    Parity("get_label", ("get_label",), "colour and description; slashed names found in the list"),
    Parity(
        "get_latest_release",
        ("get_release",),
        "one tool for latest, by tag and by id (drafts); notes cleaned and capped",
    ),
    Parity("get_me", ("get_me",), ""),
    Parity(
        "get_notification_details",
        ("get_notification_details",),
        "with when you last read it and the thread's own subscription",
    ),
    Parity(
        "get_release_by_tag",
        ("get_release",),
        "one tool for latest, by tag and by id (drafts); notes cleaned and capped",
    ),
    Parity(
        "get_repository_tree",
        ("list_repository_tree",),
        "filtered by .gitignore, your patterns and a size gate",
    ),
    Parity(
        "get_secret_scanning_alert",
        ("get_security_alert",),
        "kind=secret_scanning: type and locations; the secret's value is never shown",
    ),
    Parity(
        "get_tag",
        ("get_tag",),
        "by tag name: the commit, and for an annotated tag its message and tagger",
    ),
    Parity("get_team_members", ("list_team_members",), "filter by role (member or maintainer)"),
    Parity("get_teams", ("list_my_teams",), "compact: organisation, slug, name, description"),
    Parity(
        "issue_dependency_read",
        ("get_issue_dependencies",),
        '"blocked by" and "blocking" in one call; numbers, not ids',
    ),
    Parity(
        "issue_dependency_write",
        ("change_issue_dependency",),
        "answers with both lists after the change",
    ),
    Parity(
        "issue_read",
        ("get_issue",),
        "a page of comments with the issue; untrusted text cleaned and labelled by author",
    ),
    Parity("issue_write", ("create_issue", "update_issue"), "gated as unscoped writes"),
    Parity(
        "label_write",
        ("create_label", "update_label", "delete_label"),
        "gated as unscoped writes; issues carrying a renamed label follow it",
    ),
    Parity("list_branches", ("list_branches",), "each branch's protection flag"),
    Parity(
        "list_code_scanning_alerts",
        ("list_security_alerts", "set_security_alert_state"),
        "one list for the three kinds; filters by state, severity, tool, ref; dismissal gated",
    ),
    Parity("list_commits", ("list_commits",), "optionally only commits touching a path"),
    Parity(
        "list_dependabot_alerts",
        ("list_security_alerts", "set_security_alert_state"),
        "filters by state, severity, ecosystem, package; dismissal gated for a human",
    ),
    Parity(
        "list_discussion_categories",
        ("list_discussion_categories",),
        "which categories take an answer",
    ),
    Parity(
        "list_discussions",
        ("list_discussions",),
        "filtered by category slug or name; answered state and comment counts",
    ),
    Parity("list_gists", ("list_gists",), "compact: id, description, visibility, file names"),
    Parity(
        "list_global_security_advisories",
        ("list_global_advisories",),
        "filters by ecosystem, severity, CVE, GHSA id, package",
    ),
    Parity("list_issue_fields", ("list_issue_fields",), "with an issue's values in one call"),
    Parity("list_issue_types", ("list_issue_types",), "the enabled types of the organisation"),
    Parity("list_issues", ("list_issues",), "pull requests left out; cursor paging"),
    Parity("list_label", ("list_labels",), "compact: name, colour, description"),
    Parity(
        "list_notifications",
        ("list_notifications",),
        "unread, all, participating, since, before, per repository; other repositories hidden",
    ),
    Parity(
        "list_org_repository_security_advisories",
        ("list_repository_advisories",),
        "org=: repositories outside the allow-list are left out",
    ),
    Parity(
        "list_pull_requests",
        ("list_pull_requests",),
        "filtered by state, base or head branch",
    ),
    Parity(
        "list_releases",
        ("list_releases", "draft_release", "update_release", "publish_release"),
        "drafts with GitHub's generated notes (no approval), publishing gated for a human",
    ),
    Parity(
        "list_repository_collaborators",
        ("list_repository_collaborators",),
        "each person's role; filter by permission",
    ),
    Parity(
        "list_repository_security_advisories",
        ("list_repository_advisories",),
        "filter by state",
    ),
    Parity(
        "list_secret_scanning_alerts",
        ("list_security_alerts",),
        "the secret's value is never asked for nor shown",
    ),
    Parity(
        "list_starred_repositories",
        ("list_starred_repositories",),
        "repositories outside the allow-list are left out",
    ),
    Parity("list_tags", ("list_tags",), "each tag's commit, cursor paging"),
    Parity(
        "manage_notification_subscription",
        ("manage_notification_subscription",),
        "watch, ignore or delete, gated as an unscoped write",
    ),
    Parity(
        "manage_repository_notification_subscription",
        ("manage_repository_notification_subscription",),
        "watch, ignore or stop watching, inside the allow-list",
    ),
    Parity(
        "mark_all_notifications_read",
        ("mark_all_notifications_read",),
        "all, or one repository's, up to a time; one repository at a time under an allow-list",
    ),
    Parity(
        "merge_pull_request",
        ("merge_pull_request",),
        "gated by the base branch; expected_head_sha guards against a moved head",
    ),
    Parity(
        "projects_get",
        ("get_project",),
        "fields with their ids, single select options and iterations, and views, in one call",
    ),
    Parity(
        "projects_list",
        ("list_projects", "list_project_items"),
        "items with every field value by name; content outside the allow-list withheld",
    ),
    Parity(
        "projects_write",
        ("add_project_item", "update_project_item_field", "archive_project_item"),
        "gated as unscoped writes; one value checked against the field's type before sending",
    ),
    Parity(
        "pull_request_read",
        ("get_pr_overview", "get_pr_diff", "list_pr_comments", "find_unresolved_comments"),
        "metadata, files, checks, reviews and mergeability in one call; paged diffs",
    ),
    Parity(
        "pull_request_review_write",
        ("create_pr_review", "pending_pr_review"),
        "creates and submits in one call, or starts a pending review to submit or delete",
    ),
    Parity(
        "push_files",
        ("commit_files",),
        "create, update or delete up to 100 files in one atomic, verified commit",
    ),
    Parity(
        "remove_sub_issue",
        ("change_sub_issue", "list_sub_issues"),
        "answers with the new order; numbers, not ids",
    ),
    Parity(
        "reprioritize_sub_issue",
        ("change_sub_issue", "list_sub_issues"),
        "answers with the new order; numbers, not ids",
    ),
    Parity("request_copilot_review", ("request_copilot_review",), "a refusal says what it needs"),
    Parity(
        "request_pull_request_reviewers",
        ("request_pr_reviewers",),
        "users and teams in one call, and withdraws a request (remove=true)",
    ),
    Parity(
        "resolve_review_thread",
        ("resolve_review_thread",),
        "also unresolves (resolved=false)",
    ),
    Parity("search_code", ("search",), "fetch(id) reads a hit (the ChatGPT connector shape)"),
    Parity(
        "search_commits",
        ("search",),
        "one tool for the search kinds, paged, with fetch(id) and the rate limit when low",
    ),
    Parity(
        "search_issues",
        ("search",),
        "one tool for the search kinds, paged, with fetch(id) and the rate limit when low",
    ),
    Parity("search_orgs", ("search_users",), "one tool for users and organisations (orgs=true)"),
    Parity(
        "search_pull_requests",
        ("search",),
        "one tool for the search kinds, paged, with fetch(id) and the rate limit when low",
    ),
    Parity(
        "search_repositories",
        ("search",),
        "one tool for the search kinds, paged, with fetch(id) and the rate limit when low",
    ),
    Parity(
        "search_users",
        ("search_users",),
        "compact: login, type and profile link; the rate limit when low",
    ),
    Parity("set_issue_fields", ("set_issue_fields",), "by name; each value checked first"),
    Parity("star_repository", ("star_repository",), "an unscoped write: a human approves"),
    Parity(
        "sub_issue_write",
        ("change_sub_issue", "list_sub_issues"),
        "answers with the new order; numbers, not ids",
    ),
    Parity(
        "submit_pending_pull_request_review",
        ("pending_pr_review",),
        "one tool starts, submits and deletes a pending review",
    ),
    Parity(
        "ui_get",
        not_offered="it feeds the official server's own views; this server's cards "
        "(MCP Apps) read through the ordinary tools via the host, so no separate tool is needed",
    ),
    Parity(
        "unresolve_review_thread",
        ("resolve_review_thread",),
        "one tool resolves and unresolves",
    ),
    Parity("unstar_repository", ("unstar_repository",), "an unscoped write: a human approves"),
    Parity(
        "update_gist",
        ("update_gist",),
        "change or delete files in one call; an unscoped write a human approves",
    ),
    Parity("update_issue_assignees", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_body", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_labels", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_milestone", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_state", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_title", ("update_issue",), ISSUE_FIELDS),
    Parity("update_issue_type", ("set_issue_type",), "by name; or suggested, with a rationale"),
    Parity(
        "update_pull_request",
        ("update_pull_request", "close_pull_request"),
        "a protected new base needs approval",
    ),
    Parity("update_pull_request_body", ("update_pull_request",), "one call for title, body, base"),
    Parity(
        "update_pull_request_branch",
        ("update_pr_branch",),
        "gated by the head branch; always sends the head it saw (or the approved one)",
    ),
    Parity(
        "update_pull_request_draft_state",
        ("set_pr_draft",),
        "reports whether the state changed; a PR already in it is left alone",
    ),
    Parity(
        "update_pull_request_state",
        ("close_pull_request", "reopen_pull_request"),
        "closing and reopening each report a PR already in that state as such",
    ),
    Parity("update_pull_request_title", ("update_pull_request",), "one call for title, body, base"),
)
