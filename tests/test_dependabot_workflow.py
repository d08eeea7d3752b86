"""A Dependabot alert to a pull request through MCP tools alone (issue 24's workflow), on the
demo repository of a forge of its own: the fix_dependabot_alert prompt names the steps, a
real MCP client follows them (read the alert, bump requirements.txt on a branch, run the
tests in a workspace, open the PR). Evidence from the forge: the branch's manifest has the
patched version, the default branch still the old one, and the PR's body names the alert.
Once CI passes, a reviewer approves and the human's approved merge lands, the forge closes
the alert as fixed, as GitHub does."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest

from sandbox_forge import Forge
from sandbox_forge.admin.collab_seeding import add_check_run, add_review
from sandbox_forge.admin.seed import DEMO_REPO, seed_demo
from sandbox_forge.stores.collab import collab
from tests.conftest import call_tool, mcp_client, traversable

TOOL_REF = re.compile(r"`([a-z_]+)\(")


@pytest.fixture
def demo_forge() -> Iterator[Forge]:
    with Forge() as started:  # its own: this test adds a branch and a PR to the demo
        seed_demo(started)
        yield started


def _file_at(forge: Forge, ref: str, path: str) -> str:
    repo = forge.state.repo(*DEMO_REPO.split("/"))
    assert repo is not None
    sha = repo.git.resolve_commit(ref)
    assert sha is not None
    return repo.git.read_blob(repo.git.ls_tree(sha, path)[0].sha).decode()


def _prompt_text(result) -> str:
    return "\n".join(m.content.text for m in result.messages)


async def test_dependabot_alert_to_pull_request(make_runtime, demo_forge, tmp_path):
    rt = make_runtime(
        github_api_url=demo_forge.base_url,
        github_token=demo_forge.create_token("octocat"),
        workspace_dir=traversable(tmp_path) / "ws",
        workspace_sandbox="none",  # pytest lives in the server's interpreter
    )
    async with mcp_client(rt) as client:
        prompt = _prompt_text(
            await client.get_prompt("fix_dependabot_alert", {"full_name": DEMO_REPO, "number": 1})
        )
        listed = {t.name for t in await client.list_tools()}
        named = set(TOOL_REF.findall(prompt))
        branch = re.search(r'branch="([^"]+)"', prompt)
        _, alerts = await call_tool(
            client,
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "dependabot", "state": "open"},
        )
        _, alert = await call_tool(
            client,
            "get_security_alert",
            {"full_name": DEMO_REPO, "kind": "dependabot", "number": 1},
        )
        dep = alert["dependency"]
        _, manifest = await call_tool(
            client, "get_file_slice", {"full_name": DEMO_REPO, "path": dep["manifest_path"]}
        )
        assert branch is not None
        head = branch.group(1)
        _, created = await call_tool(
            client, "create_branch", {"full_name": DEMO_REPO, "branch": head}
        )
        old = f"{dep['package']}==2.19.1"
        assert manifest["text"].strip() == old
        new = f"{dep['package']}=={dep['patched_version']}"
        patch = (
            f"--- a/{dep['manifest_path']}\n+++ b/{dep['manifest_path']}\n"
            f"@@ -1 +1 @@\n-{old}\n+{new}\n"
        )
        _, commit = await call_tool(
            client,
            "apply_patch_and_commit",
            {
                "full_name": DEMO_REPO,
                "branch": head,
                "patch": patch,
                "message": f"Bump {dep['package']} to {dep['patched_version']}",
            },
        )
        _, tests = await call_tool(
            client,
            "run_tests",
            {
                "full_name": DEMO_REPO,
                "ref": head,
                "test_command": "python -m pytest -q",
                "use_venv": False,
            },
        )
        body = (
            f"Fixes Dependabot alert #1 ({alert['url']}): {dep['ghsa_id']}, {dep['cve_id']}.\n\n"
            f"Bumps {dep['package']} in {dep['manifest_path']} to {dep['patched_version']}. "
            f"Tests: {tests['passed']} passed, {tests['failed']} failed."
        )
        main_before = _file_at(demo_forge, "main", "requirements.txt")
        _, pr = await call_tool(
            client,
            "create_pull_request",
            {
                "full_name": DEMO_REPO,
                "head": head,
                "base": "main",
                "title": f"Bump {dep['package']} from 2.19.1 to {dep['patched_version']}",
                "body": body,
            },
        )
    # CI passes and alice approves (main requires both), then the human merges it (a write
    # to main: approved here); GitHub then closes the alert
    for check in ("test-python", "test-js", "lint"):
        add_check_run(demo_forge, DEMO_REPO, head, check)
    add_review(demo_forge, DEMO_REPO, pr["number"], user="alice", event="APPROVE")
    merger = make_runtime(
        github_api_url=demo_forge.base_url,
        github_token=demo_forge.create_token("octocat"),
        auto_approve=True,
    )
    async with mcp_client(merger) as client:
        _, merged = await call_tool(
            client,
            "merge_pull_request",
            {"pr": f"{DEMO_REPO}#{pr['number']}", "merge_method": "squash"},
        )
        _, fixed = await call_tool(
            client,
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "dependabot", "state": "fixed"},
        )
    assert merged.get("merged"), merged
    assert [a["number"] for a in fixed["alerts"]] == [1]
    assert _file_at(demo_forge, "main", "requirements.txt") == "requests==2.20.0\n"
    assert {"get_security_alert", "create_branch", "run_tests", "create_pull_request"} <= named
    assert named <= listed, named - listed
    assert [a["number"] for a in alerts["alerts"]] == [1]
    assert created["branch"] == head and commit["verification"]["verified"]
    assert tests["passed"] >= 1 and tests["failed"] == tests["errors"] == 0, tests
    # the forge's own state
    assert _file_at(demo_forge, head, "requirements.txt") == "requests==2.20.0\n"
    assert main_before == "requests==2.19.1\n"
    repo = demo_forge.state.repo(*DEMO_REPO.split("/"))
    assert repo is not None
    opened = collab(repo).issues[pr["number"]]
    assert opened.pull is not None and opened.pull.head_ref == head
    assert opened.pull.base_ref == "main" and opened.pull.merged and opened.state == "closed"
    assert "Dependabot alert #1" in (opened.body or "")
    assert "/security/dependabot/1" in (opened.body or "")
    assert "GHSA-x84v-xcm2-53pg" in (opened.body or "")


async def test_the_prompt_says_how_to_reach_the_code_security_tools(make_runtime):
    async with mcp_client(make_runtime(toolsets="default")) as client:
        prompt = _prompt_text(
            await client.get_prompt("fix_dependabot_alert", {"full_name": DEMO_REPO, "number": 3})
        )
    assert 'enable_toolset("code_security")' in prompt
    assert "Dependabot alert #3" in prompt and "get_security_alert" in prompt
