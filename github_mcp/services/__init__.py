"""The calls to GitHub behind the tools, one home per domain, named as its tools are
(`tools/<domain>` uses `services/<domain>` and `services/shared`; pyproject.toml's import
contracts hold every tool module to that):

- pulls/ (and copilot), reviews, issues/ (issues, issue_views, labels, reactions),
  planning/ (sub-issues, dependencies, milestones, issue types and fields, duplicates);
- releases, notifications, discussions, gists, projects/, security/ (alerts, advisories,
  code quality), actions/ (workflow runs, jobs, logs, failing tests);
- workspace/ (clones, sandboxed commands, commits and signed pushes), repos/ (repository
  views, admin, file views, tree filter, blame, edits), people, search, meta (whether the
  server can work as configured);
- shared/: what several domains need (GitHub's JSON types, paging, repository facts, file
  reads, the commit engine, the state an approval is bound to).
"""
