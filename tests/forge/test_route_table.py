"""sandbox_forge/README.md's route table is what the app serves now, and says how."""

from __future__ import annotations

from sandbox_forge import route_table

from .contract import validator


def test_the_readme_route_table_is_current():
    readme = route_table.README.read_text()
    assert route_table.render(readme, validator()) == readme, (
        "sandbox_forge/README.md's route table is stale: run python -m sandbox_forge.route_table "
        "--openapi .cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json "
        "--write"
    )


def test_every_simulated_or_undescribed_route_is_served():
    rows = {route for route, _op, _how in route_table.rest_rows(validator())}
    served = {route for route, _op, how in route_table.rest_rows(validator()) if how}
    assert set(route_table.SIMULATED) <= rows
    assert set(route_table.NOT_DESCRIBED) <= served
    simulated = [r for r in route_table.rest_rows(validator()) if r[2].startswith("simulated")]
    assert len(simulated) == len(route_table.SIMULATED)
    copilot = "POST /repos/{owner}/{repo}/issues/{issue_number}/assignees"
    assert any(r[0] == copilot and "Copilot" in r[2] for r in simulated)
