"""validate_environment through an MCP client: the checks, in order, and their counts."""

from __future__ import annotations

from tests.conftest import call_tool, mcp_client


async def test_validate_environment_reports_each_check(make_runtime, forge):
    forge.seed_repo("octo-org/env-controller", {"README.md": "x\n"})
    rt = make_runtime(controller_repo="octo-org/env-controller", auto_approve=True)
    async with mcp_client(rt) as client:
        is_error, report = await call_tool(client, "validate_environment", {})
        assert not is_error, report
        is_error, offline = await call_tool(client, "validate_environment", {"probe_github": False})
    levels = {c["name"]: c["level"] for c in report["checks"]}
    assert list(levels) == [
        "github_credentials",
        "github_api",
        "controller_repo",
        "workspace_dir",
        "auto_approve",
    ]
    assert levels["auto_approve"] == "warning" and levels["controller_repo"] == "ok"
    assert "(default main)" in report["checks"][2]["detail"]
    assert (report["ok"], report["warnings"], report["errors"]) == (4, 1, 0)
    assert [c["name"] for c in offline["checks"]] == [
        "github_credentials",
        "workspace_dir",
        "auto_approve",
    ]


async def test_validate_environment_says_when_github_cannot_be_reached(make_runtime):
    rt = make_runtime(github_api_url="http://127.0.0.1:9", github_token=None)
    async with mcp_client(rt) as client:
        is_error, report = await call_tool(client, "validate_environment", {})
    assert not is_error, report
    levels = {c["name"]: c["level"] for c in report["checks"]}
    assert levels["github_credentials"] == "warning"
    assert levels["github_api"] == "error" and report["errors"] == 1
