"""The destructive tools (github_mcp/tools/repos/destructive.py, the worked example for operators'
extra_tools.py) work through public APIs only, like the extension point itself, and
delete_remote_branch reports what it read back, not an assumed success."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from sandbox_forge import Forge, RefUpdate
from tests.conftest import call_tool, mcp_client

ROOT = Path(__file__).resolve().parents[1]
ORG = "extra-org"


def _repo(forge: Forge, name: str) -> str:
    full_name = f"{ORG}/{name}"
    forge.seed_repo(full_name, {"README.md": "# r\n"}, branches={"doomed": {"x.txt": "x\n"}})
    return full_name


def _head(forge: Forge, full_name: str, branch: str) -> str | None:
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    assert repo is not None
    return repo.git.read_ref(f"refs/heads/{branch}")


async def test_delete_remote_branch_verifies_the_branch_is_gone(make_runtime, forge):
    full_name = _repo(forge, "verified-delete")
    sha = _head(forge, full_name, "doomed")
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "delete_remote_branch", {"full_name": full_name, "branch": "doomed"}
        )
    assert not is_error, result
    assert _head(forge, full_name, "doomed") is None
    assert result["commit_sha"] == sha
    verification = result["verification"]
    assert verification["verified"] is True and verification["commit_sha"] == sha
    assert verification.get("branch_sha") is None  # nothing there any more


async def test_delete_remote_branch_reports_a_branch_recreated_meanwhile(make_runtime, forge):
    full_name = _repo(forge, "recreated")
    sha = _head(forge, full_name, "doomed")
    owner, name = full_name.split("/")
    record = forge.state.repo(owner, name)
    assert record is not None and sha is not None

    def recreate(update: RefUpdate) -> None:  # another writer pushes the branch right back
        if update.repo == full_name and update.ref == "refs/heads/doomed" and update.new is None:
            assert record.git.update_ref("refs/heads/doomed", sha, None)

    forge.on_ref_update(recreate)
    try:
        async with mcp_client(make_runtime()) as client:
            is_error, result = await call_tool(
                client, "delete_remote_branch", {"full_name": full_name, "branch": "doomed"}
            )
    finally:
        forge.state.ref_hooks.remove(recreate)
    assert not is_error, result  # the delete happened; the answer must not say it failed
    assert _head(forge, full_name, "doomed") == sha
    assert result["verification"]["verified"] is False
    assert result["verification"]["branch_sha"] == sha


@pytest.mark.parametrize("source", ["extra_tools.py", "github_mcp/tools/repos/destructive.py"])
def test_extension_examples_import_no_private_names(source: str):
    tree = ast.parse((ROOT / source).read_text())
    private = [
        f"{node.module}.{alias.name}"
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module != "__future__"
        for alias in node.names
        if alias.name.startswith("_")
        or any(p.startswith("_") for p in (node.module or "").split("."))
    ]
    assert private == []
