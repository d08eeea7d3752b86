"""The cards (views) and the tools each one shows.

Adding a card: put its sources in the repository's views/<name>/, run `make views`
(writes github_mcp/apps/views/<name>.html), then add a `View` here naming the tools
whose results it renders. Tools only the card may call go in `app_tools`.
"""

from __future__ import annotations

from dataclasses import dataclass
from importlib import resources

URI_PREFIX = "ui://github-mcp/"


@dataclass(frozen=True)
class View:
    name: str
    title: str
    description: str
    # Tools whose results the card renders (listed to the model as before).
    tools: tuple[str, ...] = ()
    # Tools only the card calls (`visibility: ["app"]`): listed and callable only in a
    # session whose client declared the UI extension. Audience, not authorisation: such a
    # tool must still check what it is asked to do (a human-only nonce, for instance).
    app_tools: tuple[str, ...] = ()
    # Tools the card itself calls (its buttons, the halves it fetches). A client that shows
    # cards lists them for the card (`visibility: ["app"]` where the session's list leaves
    # them out), and each result the card renders says which of them this session may call,
    # so a button appears only when its call can go through.
    calls: tuple[str, ...] = ()
    # ChatGPT's status lines while a tool runs and after (`openai/toolInvocation/*`, at
    # most 64 characters): the MCP Apps standard has no field for them.
    invoking: str = ""
    invoked: str = ""

    @property
    def uri(self) -> str:
        return f"{URI_PREFIX}{self.name}.html"

    def html(self) -> str:
        return resources.files("github_mcp.apps.views").joinpath(f"{self.name}.html").read_text()


VIEWS: tuple[View, ...] = (
    View(
        "pr-card",
        "Pull request card",
        "A pull request's state, checks, reviews and merge blockers, with their actions.",
        tools=("get_pr_overview", "check_merge_readiness"),
        calls=(
            "get_pr_overview",
            "check_merge_readiness",
            "list_workflow_runs",
            "rerun_failed_jobs",
            "request_pr_reviewers",
            "merge_pull_request",
        ),
        invoking="Reading the pull request…",
        invoked="Pull request card ready",
    ),
    View(
        "ci-card",
        "CI failure card",
        "Failing tests grouped by job, with their messages, locations, log excerpts and rerun "
        "commands; a workflow run's jobs.",
        tools=("get_failing_tests", "get_workflow_run_overview"),
        calls=("get_pr_overview", "get_job_logs", "list_workflow_runs", "rerun_failed_jobs"),
        invoking="Reading the CI results…",
        invoked="CI card ready",
    ),
    View(
        "diff-card",
        "Diff card",
        "A pull request's diff, or the commits and files between two refs, file by file.",
        tools=("get_pr_diff", "compare_refs"),
        calls=("get_pr_diff", "compare_refs", "get_repository", "get_pr_overview"),
        invoking="Reading the diff…",
        invoked="Diff ready",
    ),
    View(
        "change-card",
        "Change summary card",
        "What a write committed: the commit, its files with line counts, whether the branch "
        "read back as written, and links.",
        tools=(
            "commit_files",
            "apply_patch_and_commit",
            "apply_text_update_and_commit",
            "update_file_sections_and_commit",
            "delete_file",
            "move_file",
            "update_files_and_open_pr",
        ),
        calls=("get_repository", "compare_refs"),
        invoking="Writing…",
        invoked="Change summary ready",
    ),
    View(
        "proposed-write",
        "Proposed write",
        "A gated write waiting for the human: its facts in full, with Approve and Deny.",
        # every write tool links it too, for a client that shows cards (approval_tool.py)
        app_tools=("decide_proposed_write",),
    ),
)


def view_of_tool() -> dict[str, View]:
    """Tool name -> the card that shows it (model-visible and app-only tools alike)."""
    return {name: view for view in VIEWS for name in (*view.tools, *view.app_tools)}


def app_only_tools() -> frozenset[str]:
    return frozenset(name for view in VIEWS for name in view.app_tools)


def card_calls() -> frozenset[str]:
    """Every tool some card calls (its buttons and the halves it fetches)."""
    return frozenset(name for view in VIEWS for name in view.calls)
