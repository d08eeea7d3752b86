"""Demo data for issue types, issue fields, Copilot and code quality in octo-org, seeded
after the collaboration and planning demos (it adds no issue, so their counts hold):

- octo-org's issue types Bug, Feature and Task; the divide() bug is a Bug, the web-module
  request a Feature, the release-notes issue a Task.
- octo-org's issue fields Priority (single select: P0, P1, P2), Estimate (number, days) and
  Target date (date); the bug carries Priority P1 and an estimate of 2.
- Copilot is enabled for octo-org/demo-app, so its coding agent can be assigned there and
  its review requested.
- Code quality is set up for demo-app with two findings on src/demo_app/calc.py.
"""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.stores import copilot
from sandbox_forge.stores import issue_meta as meta
from sandbox_forge.stores.code_quality import add_finding
from sandbox_forge.stores.collab import collab

DEMO_REPO = "octo-org/demo-app"
TYPES = (
    ("Bug", "An unexpected problem or behavior", "red"),
    ("Feature", "A request, idea, or new functionality", "blue"),
    ("Task", "A specific piece of work", "yellow"),
)


def seed_demo_issue_meta(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    org = repo.owner
    kinds = {name: meta.add_type(st, org, name, text, color) for name, text, color in TYPES}
    priority = meta.add_field(st, org, "Priority", "single_select", None, ["P0", "P1", "P2"])
    estimate = meta.add_field(st, org, "Estimate", "number", "Days of work")
    meta.add_field(st, org, "Target date", "date", "When it should ship")
    known, planning = st.extensions["collab_demo"]["issues"], st.extensions["planning_demo"]
    issues = collab(repo).issues
    bug = issues[known["bug"]]
    typed = {
        known["bug"]: "Bug",
        known["enhancement"]: "Feature",
        planning["blocked"]["issue"]: "Task",
    }
    for number, kind in typed.items():
        meta.set_type(st, issues[number].id, kinds[kind])
    with st.lock:
        meta.store(st).values[bug.id] = {priority.id: "P1", estimate.id: 2}
    copilot.enable(st, full_name)
    findings = [_finding(st, repo, *spec) for spec in _FINDINGS]
    summary = {
        "types": list(kinds),
        "typed_issues": typed,
        "fields": {"Priority": priority.id, "Estimate": estimate.id},
        "copilot_enabled": [full_name],
        "code_quality_findings": findings,
    }
    st.extensions["issue_meta_demo"] = summary
    return summary


_FINDINGS = (
    (
        "py/unused-import",
        "Unused import",
        "An import that is not used adds a dependency for nothing.",
        "note",
        "maintainability",
        4,
        "Import of 'math' is not used.",
    ),
    (
        "py/division-by-zero",
        "Possible division by zero",
        "Dividing by a value that can be zero raises at run time.",
        "warning",
        "reliability",
        9,
        "This division fails when 'b' is 0.",
    ),
)


def _finding(st: Any, repo: Any, rule: str, title: str, text: str, *rest: Any) -> int:
    severity, category, line, message = rest
    return add_finding(
        st,
        repo,
        rule_id=rule,
        title=title,
        description=text,
        severity=severity,
        category=category,
        path="src/demo_app/calc.py",
        start_line=line,
        end_line=line,
        message=message,
    ).number
