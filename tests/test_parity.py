"""docs/PARITY.md is generated from the parity table (github_mcp/cli/parity.toml), is current,
and names only real tools: one row per official tool listed in the breadth issue. Every row
of ours names the tests that show ours doing the official tool's job, and each of them
exists and calls one of the row's tools; a row without one reads "untested". A malformed
table is refused when it is read."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import extra_tools  # noqa: F401  (registers the extra tools)
import github_mcp.tools  # noqa: F401  (registers the tools)
from github_mcp.cli.docs_gen import DOCS
from github_mcp.cli.parity import (
    NOT_OFFERED,
    NOT_YET,
    PARITY,
    UNTESTED,
    load_rows,
    parity_markdown,
)
from github_mcp.pipeline.registry import REGISTRY

OFFICIAL = """
actions_get actions_list actions_run_trigger add_comment_to_pending_review add_issue_comment
add_issue_comment_reaction add_issue_reaction add_pull_request_review_comment
add_pull_request_review_comment_reaction add_reply_to_pull_request_comment add_sub_issue
assign_copilot_to_issue assign_copilot_to_issue_with_intent create_branch create_gist
create_issue create_or_update_file create_pull_request create_pull_request_review
create_repository delete_file delete_pending_pull_request_review delete_repository
discussion_comment_write dismiss_notification find_duplicate fork_repository
get_code_quality_finding get_code_scanning_alert get_commit get_dependabot_alert get_discussion
get_discussion_comments get_file_blame get_file_contents get_gist get_global_security_advisory
get_job_logs get_label get_latest_release get_me get_notification_details get_release_by_tag
get_repository_tree get_secret_scanning_alert get_tag get_team_members get_teams
issue_dependency_read issue_dependency_write issue_read issue_write label_write list_branches
list_code_scanning_alerts list_commits list_dependabot_alerts list_discussion_categories
list_discussions list_gists list_global_security_advisories list_issue_fields list_issue_types
list_issues list_label list_notifications list_org_repository_security_advisories
list_pull_requests list_releases list_repository_collaborators
list_repository_security_advisories list_secret_scanning_alerts list_starred_repositories
list_tags manage_notification_subscription manage_repository_notification_subscription
mark_all_notifications_read merge_pull_request projects_get projects_list projects_write
pull_request_read pull_request_review_write push_files remove_sub_issue reprioritize_sub_issue
request_copilot_review request_pull_request_reviewers resolve_review_thread search_code
search_commits search_issues search_orgs search_pull_requests search_repositories search_users
set_issue_fields star_repository sub_issue_write submit_pending_pull_request_review ui_get
unresolve_review_thread unstar_repository update_gist update_issue_assignees update_issue_body
update_issue_labels update_issue_milestone update_issue_state update_issue_title
update_issue_type update_pull_request update_pull_request_body update_pull_request_branch
update_pull_request_draft_state update_pull_request_state update_pull_request_title
""".split()


def test_parity_doc_is_current():
    assert (DOCS / "PARITY.md").read_text() == parity_markdown(), "run: python main.py docs"


def test_a_row_serving_several_official_tools_gives_each_its_own_line():
    rows = load_rows('[[row]]\nofficial = ["a_tool", "b_tool"]\nours = ["ours"]\nadds = "x"\n')
    assert [(r.official, r.ours, r.adds) for r in rows] == [
        ("a_tool", ("ours",), "x"),
        ("b_tool", ("ours",), "x"),
    ]


@pytest.mark.parametrize(
    ("table", "complaint"),
    [
        ('[[row]]\nofficial = ["a"]\nours = ["b"]\nextra = "?"\n', "extra"),
        ('[[row]]\nofficial = []\nours = ["b"]\n', "official"),
        ('[[row]]\nofficial = ["a"]\nours = ["b"]\nnot_offered = "why"\n', "both offered"),
        ('[[row]]\nofficial = ["a"]\n[[row]]\nofficial = ["c", "a"]\n', "more than one row: a"),
        ('[[row]]\nofficial = ["a"]\nours = ["b"]\ntests = ["test_x"]\n', "pattern"),
    ],
)
def test_a_malformed_table_is_refused(table, complaint):
    with pytest.raises(ValueError, match=complaint):
        load_rows(table)


def test_one_row_per_official_tool():
    assert len(OFFICIAL) == len(set(OFFICIAL))
    assert sorted(PARITY) == sorted(OFFICIAL)
    lines = [ln for ln in parity_markdown().splitlines() if ln.startswith("| ") and "---" not in ln]
    assert [ln.split(" | ")[0].removeprefix("| ") for ln in lines[1:]] == sorted(OFFICIAL)


def test_every_tool_named_is_registered():
    named = {tool for row in PARITY.values() for tool in row.ours}
    assert named, "the table maps no tool at all"
    assert sorted(named - set(REGISTRY)) == []


def test_only_ui_get_is_not_offered_and_it_says_why():
    not_offered = [row.official for row in PARITY.values() if row.not_offered]
    assert not_offered == ["ui_get"]
    assert not PARITY["ui_get"].ours
    line = next(ln for ln in parity_markdown().splitlines() if ln.startswith("| ui_get |"))
    assert f"| {NOT_OFFERED} |" in line and len(line) > 60


def test_uncovered_rows_read_not_yet():
    for row in PARITY.values():
        line = next(
            ln for ln in parity_markdown().splitlines() if ln.startswith(f"| {row.official} |")
        )
        if not row.ours and not row.not_offered:
            assert line == f"| {row.official} | {NOT_YET} |  |  |"
        elif row.ours:
            assert row.adds or row.official == "get_me", row.official


BREADTH_TOOLSETS = {
    "releases",
    "labels",
    "people",
    "stars",
    "gists",
    "reactions",
    "notifications",
    "code_security",
    "issue_planning",
    "discussions",
}


def test_breadth_toolsets_stay_off_the_default_list():
    from github_mcp.config import Settings

    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert BREADTH_TOOLSETS <= set(settings.toolset_list)  # registered, callable
    assert BREADTH_TOOLSETS.isdisjoint(settings.listed_toolsets)  # but not listed
    breadth = {s.name for s in REGISTRY.values() if s.toolset in BREADTH_TOOLSETS}
    assert len(breadth) >= 20


ROOT = Path(__file__).resolve().parent.parent


def _test_function(test_id: str) -> ast.AST | None:
    path, _, name = test_id.partition("::")
    source = ROOT / path
    if not source.is_file():
        return None
    tree = ast.parse(source.read_text())
    return next(
        (
            node
            for node in tree.body
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        ),
        None,
    )


def _strings(node: ast.AST) -> set[str]:
    return {
        n.value for n in ast.walk(node) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    }


def test_every_row_of_ours_names_a_test_that_exists_and_calls_its_tools():
    untested = sorted(row.official for row in PARITY.values() if row.ours and not row.tests)
    assert untested == []
    problems = []
    for row in PARITY.values():
        for test_id in row.tests:
            found = _test_function(test_id)
            if found is None:
                problems.append(f"{row.official}: no test {test_id}")
            elif not set(row.ours) & _strings(found):
                problems.append(f"{row.official}: {test_id} calls none of {row.ours}")
    assert problems == []


def test_a_row_without_a_test_reads_untested():
    rows = load_rows(
        '[[row]]\nofficial = ["a_tool"]\nours = ["ours"]\nadds = "x"\n'
        '[[row]]\nofficial = ["b_tool"]\nours = ["ours"]\nadds = "y"\n'
        'tests = ["tests/test_parity.py::test_a_row_without_a_test_reads_untested"]\n'
    )
    lines = parity_markdown(rows).splitlines()
    assert f"| a_tool | ours | x | {UNTESTED} |" in lines
    assert (
        "| b_tool | ours | y | `test_parity.py::test_a_row_without_a_test_reads_untested` |"
        in lines
    )
    assert "2 covered, 1 of them shown by a named test" in parity_markdown(rows)
    assert _test_function("tests/test_parity.py::test_no_such_test") is None
