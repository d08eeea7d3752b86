"""Prompts, the operating-contract resource, the file-at-ref resource template and its
completions, through a real MCP client against the forge."""

from __future__ import annotations

import base64
import re

import mcp_types
import pytest
from fastmcp.exceptions import McpError

from github_mcp.catalog.prompts import CONTRACT_URI
from github_mcp.catalog.resources import BLOB_TEMPLATE
from tests.conftest import call_tool, mcp_client

REPO = "octo-org/prompt-res"
LONG = "".join(f"line {i:04d} é\n" for i in range(400))
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(64))
FILES = {
    "README.md": "# prompt-res\n",
    "src/app.py": "def answer():\n    return 42\n",
    "notes/long.txt": LONG,
    "img/dot.png": PNG,
}
TOOL_REF = re.compile(r"`([a-z][a-z_]+[a-z])(?:\(|`)")


@pytest.fixture(scope="module")
def res_repo(forge):
    forge.seed_repo(
        REPO,
        FILES,
        branches={"feature/x": {**FILES, "src/app.py": "def answer():\n    return 7\n"}},
    )
    return REPO


def _text(prompt_result) -> str:
    return "\n".join(m.content.text for m in prompt_result.messages)


async def _tool_names(client) -> set[str]:
    return {t.name for t in await client.list_tools()}


async def test_prompts_are_listed_with_arguments(make_runtime):
    async with mcp_client(make_runtime()) as client:
        prompts = {p.name: p for p in await client.list_prompts()}
    assert set(prompts) >= {
        "start_session",
        "fix_failing_ci",
        "address_review_comments",
        "ship_change",
    }
    args = {name: [a.name for a in (p.arguments or [])] for name, p in prompts.items()}
    assert args["start_session"] == []
    assert args["fix_failing_ci"] == ["pr"] and args["address_review_comments"] == ["pr"]
    assert args["ship_change"] == ["full_name", "goal"]
    assert all(a.required and a.description for a in prompts["ship_change"].arguments)


async def test_start_session_states_the_contract_and_names_only_real_tools(make_runtime):
    async with mcp_client(make_runtime()) as client:
        text = _text(await client.get_prompt("start_session"))
        names = await _tool_names(client)
        for prompt, args in (
            ("fix_failing_ci", {"pr": "octo-org/demo-app#1"}),
            ("address_review_comments", {"pr": "octo-org/demo-app#1"}),
            ("ship_change", {"full_name": "octo-org/demo-app", "goal": "Add multiply"}),
        ):
            task = _text(await client.get_prompt(prompt, args))
            mentioned = set(TOOL_REF.findall(task))
            assert mentioned and mentioned <= names, (prompt, mentioned - names)
    for phrase in (
        "Branch first",
        "Patch, do not rewrite",
        "verification.verified",
        "authorize_write_actions(approved=true)",
        "Never approve",
        "run_tests",
    ):
        assert phrase in text
    mentioned = set(TOOL_REF.findall(text))
    assert {"create_branch", "apply_patch_and_commit", "get_server_config"} <= mentioned
    assert mentioned <= names, mentioned - names


async def test_contract_follows_mode_toolsets_and_read_only(make_runtime):
    async with mcp_client(make_runtime(approval_mode="env")) as client:
        env_text = _text(await client.get_prompt("start_session"))
    assert "only the operator grants it" in env_text
    assert "authorize_write_actions" not in env_text

    async with mcp_client(make_runtime(read_only=True)) as client:
        ro_text = _text(await client.get_prompt("start_session"))
        names = await _tool_names(client)
    assert "read-only" in ro_text
    assert set(TOOL_REF.findall(ro_text)) <= names
    assert "`create_branch`" not in ro_text and "apply_patch_and_commit" not in ro_text

    async with mcp_client(make_runtime(toolsets="meta,files", approval_ttl_seconds=600)) as client:
        narrow = _text(await client.get_prompt("start_session"))
        names = await _tool_names(client)
    assert "run_tests" not in narrow and "get_file_slice" in narrow
    assert set(TOOL_REF.findall(narrow)) <= names
    assert "expires after 600 s" in narrow


async def test_task_prompts_normalise_and_reject_their_arguments(make_runtime):
    async with mcp_client(make_runtime()) as client:
        from_url = _text(
            await client.get_prompt(
                "fix_failing_ci", {"pr": "https://github.com/octo-org/demo-app/pull/7"}
            )
        )
        assert "octo-org/demo-app#7" in from_url and "https://" not in from_url
        review = _text(
            await client.get_prompt("address_review_comments", {"pr": "octo-org/demo-app#3"})
        )
        assert "octo-org/demo-app#3" in review and "Approval:" in review
        ship = _text(
            await client.get_prompt(
                "ship_change",
                {"full_name": " octo-org/demo-app ", "goal": "Add a multiply function"},
            )
        )
        assert "Goal for octo-org/demo-app: Add a multiply function" in ship
        assert "create_branch" in ship
        with pytest.raises(McpError, match="owner/repo#123"):
            await client.get_prompt("fix_failing_ci", {"pr": "not a pr"})
        with pytest.raises(McpError, match="owner/repo"):
            await client.get_prompt("ship_change", {"full_name": "no slash here", "goal": "x"})
        with pytest.raises(McpError, match="goal must be"):
            await client.get_prompt("ship_change", {"full_name": "o/r", "goal": "x" * 2001})


async def test_contract_resource_matches_the_prompt(make_runtime):
    async with mcp_client(make_runtime()) as client:
        resources = {str(r.uri): r for r in await client.list_resources()}
        assert resources[CONTRACT_URI].mimeType == "text/markdown"
        contents = await client.read_resource(CONTRACT_URI)
        prompt = _text(await client.get_prompt("start_session"))
    assert contents[0].text == prompt


async def test_file_template_reads_like_get_file_contents(make_runtime, res_repo):
    async with mcp_client(make_runtime()) as client:
        templates = {t.uriTemplate: t for t in await client.list_resource_templates()}
        assert BLOB_TEMPLATE in templates
        uri = f"repo://{res_repo}/blob/main/src/app.py"
        [item] = await client.read_resource(uri)
        is_error, tool = await call_tool(
            client,
            "get_file_contents",
            {"full_name": res_repo, "path": "src/app.py", "ref": "main"},
        )
        assert not is_error
        assert item.text == tool["content"] == FILES["src/app.py"]
        assert item.mimeType == "text/x-python"
        assert item.meta["sha"] == tool["sha"] and item.meta["truncated"] is False

        [branch_item] = await client.read_resource(f"repo://{res_repo}/blob/feature%2Fx/src/app.py")
        assert "return 7" in branch_item.text and branch_item.meta["ref"] == "feature/x"

        [cut] = await client.read_resource(
            f"repo://{res_repo}/blob/main/notes/long.txt?max_bytes=100"
        )
        assert cut.meta["truncated"] is True and cut.meta["total_bytes"] == len(LONG.encode())
        assert len(cut.text.encode()) <= 100 and LONG.startswith(cut.text)

        [image] = await client.read_resource(
            f"repo://{res_repo}/blob/main/img/dot.png?allow_binary=true"
        )
        assert image.mimeType == "image/png"
        assert base64.b64decode(image.blob) == PNG


@pytest.mark.parametrize(
    ("uri", "code"),
    [
        ("repo://{repo}/blob/main/img/dot.png", "binary_file"),
        ("repo://{repo}/blob/main/missing.txt", "not_found"),
        ("repo://{repo}/blob/main/src", "not_a_file"),
        ("repo://{repo}/blob/main/src/app.py?max_bytes=0", "invalid_input"),
        ("repo://{repo}/blob/bad..ref/src/app.py", "invalid_input"),
        ("repo://elsewhere/secret/blob/main/a.txt", "repo_not_allowed"),
    ],
)
async def test_file_template_errors_carry_the_envelope(make_runtime, res_repo, uri, code):
    rt = make_runtime(repo_allowlist=f"{res_repo}")
    async with mcp_client(rt) as client:
        with pytest.raises(McpError) as info:
            await client.read_resource(uri.format(repo=res_repo))
    envelope = info.value.error.data
    assert envelope["error"]["code"] == code
    assert info.value.error.code == -32602  # every one is the caller's to fix (SEP-2164)
    if code == "binary_file":
        assert envelope["error"]["magic_hex"].startswith("89504e47")
        assert "allow_binary" in envelope["error"]["hint"]


async def test_ref_completion_lists_branches(make_runtime, res_repo):
    template = mcp_types.ResourceTemplateReference(type="ref/resource", uri=BLOB_TEMPLATE)
    owner, name = res_repo.split("/")
    rt = make_runtime(repo_allowlist=f"{res_repo},octo-org/demo-app")
    async with mcp_client(rt) as client:
        everything = await client.complete(
            template, {"name": "ref", "value": ""}, {"owner": owner, "repo": name}
        )
        feature = await client.complete(
            template, {"name": "ref", "value": "fea"}, {"owner": owner, "repo": name}
        )
        other_arg = await client.complete(
            template, {"name": "path", "value": ""}, {"owner": owner, "repo": name}
        )
        no_repo = await client.complete(template, {"name": "ref", "value": ""}, None)
    assert everything.values == ["feature/x", "main"]
    assert feature.values == ["feature/x"]
    assert "README.md" in other_arg.values  # paths complete too (tests/ops/test_completions.py)
    assert no_repo.values == []
    rt_narrow = make_runtime(repo_allowlist="octo-org/demo-app")
    async with mcp_client(rt_narrow) as client:
        denied = await client.complete(
            template, {"name": "ref", "value": ""}, {"owner": owner, "repo": name}
        )
    assert denied.values == []


async def test_template_absent_without_the_files_toolset(make_runtime):
    async with mcp_client(make_runtime(toolsets="meta,repos")) as client:
        templates = [t.uriTemplate for t in await client.list_resource_templates()]
        resources = [str(r.uri) for r in await client.list_resources()]
    assert BLOB_TEMPLATE not in templates
    assert CONTRACT_URI in resources
