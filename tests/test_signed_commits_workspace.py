"""commit_workspace on a branch that requires signed commits: the push is replayed as one
commit GitHub signs (createCommitOnBranch), through a real MCP client against the forge,
with the sandboxed workspace. Evidence: the forge's branch head, its tree and its REST
`verification`."""

from __future__ import annotations

from tests.conftest import call_tool, error_code, mcp_client, traversable
from tests.test_signed_commits import commit_paths, require_signatures, rest_commit
from tests.test_tools_write import head, tree_files

FILES = {"calc.py": "def add(a, b):\n    return a + b\n", "notes.txt": "n\n"}


def seed(forge, name: str) -> str:
    repo = f"octo-org/{name}"
    forge.seed_repo(repo, FILES, branches={"work": FILES})
    return repo


async def test_push_is_replayed_as_a_signed_commit(make_runtime, forge, forge_token, tmp_path):
    repo = seed(forge, "ws-signed")
    require_signatures(forge, repo, ["refs/heads/work"])
    before = head(forge, repo, "work")
    args = {"full_name": repo, "ref": "work"}
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", args)
        edit = "printf 'x = 1\\n' > new.py && rm notes.txt && echo '# more' >> calc.py"
        await call_tool(client, "terminal_command", {**args, "command": edit})
        forge.clear_requests()
        is_error, first = await call_tool(
            client, "commit_workspace", {**args, "message": "Replay me", "push": True}
        )
        assert not is_error, first
        assert commit_paths(forge)["graphql"] == 1
        # The clone now sits on the signed commit: a second push builds on it.
        await call_tool(client, "terminal_command", {**args, "command": "echo 2 > two.txt"})
        is_error, second = await call_tool(
            client, "commit_workspace", {**args, "message": "Again", "push": True}
        )
        assert not is_error, second
    signed = head(forge, repo, "work")
    assert second["commit_sha"] == signed and second["replayed_from"] != signed
    commit = rest_commit(forge, forge_token, repo, first["commit_sha"])
    assert commit["commit"]["verification"]["verified"] is True
    assert [p["sha"] for p in commit["parents"]] == [before]
    assert first["signature"] == {
        "verified": True,
        "reason": "valid",
        "via": "createCommitOnBranch",
    }
    assert [p["sha"] for p in rest_commit(forge, forge_token, repo, signed)["parents"]] == [
        first["commit_sha"]
    ]
    assert tree_files(forge, repo, signed) == {
        "calc.py": b"def add(a, b):\n    return a + b\n# more\n",
        "new.py": b"x = 1\n",
        "two.txt": b"2\n",
    }


async def test_a_mode_change_is_refused_and_nothing_is_pushed(make_runtime, forge, tmp_path):
    repo = seed(forge, "ws-signed-mode")
    require_signatures(forge, repo, ["refs/heads/work"])
    before = head(forge, repo, "work")
    args = {"full_name": repo, "ref": "work"}
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", args)
        await call_tool(client, "terminal_command", {**args, "command": "chmod +x calc.py"})
        is_error, result = await call_tool(
            client, "commit_workspace", {**args, "message": "exec", "push": True}
        )
    assert is_error and error_code(result) == "unprocessable", result
    assert result["error"]["files"] == ["calc.py: mode 100644 -> 100755"]
    assert head(forge, repo, "work") == before


async def test_never_pushes_with_git_and_the_rules_refuse_it(make_runtime, forge, tmp_path):
    repo = seed(forge, "ws-signed-never")
    require_signatures(forge, repo, ["refs/heads/work"])
    before = head(forge, repo, "work")
    args = {"full_name": repo, "ref": "work"}
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws", signed_commits="never")
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", args)
        await call_tool(client, "terminal_command", {**args, "command": "echo 1 > one.txt"})
        forge.clear_requests()
        is_error, result = await call_tool(
            client, "commit_workspace", {**args, "message": "plain", "push": True}
        )
    assert is_error and error_code(result) == "rule_violation", result
    assert "GITHUB_MCP_SIGNED_COMMITS" in result["error"]["hint"]
    assert head(forge, repo, "work") == before
    assert commit_paths(forge) == {"graphql": 0, "git_data": 0, "rules": 0}


async def test_auto_pushes_with_git_when_no_rule_requires_signatures(
    make_runtime, forge, forge_token, tmp_path
):
    repo = seed(forge, "ws-unsigned")
    args = {"full_name": repo, "ref": "work"}
    rt = make_runtime(workspace_dir=traversable(tmp_path) / "ws")
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", args)
        await call_tool(client, "terminal_command", {**args, "command": "echo 1 > one.txt"})
        forge.clear_requests()
        is_error, result = await call_tool(
            client, "commit_workspace", {**args, "message": "plain", "push": True}
        )
    assert not is_error, result
    assert "signature" not in result and result["commit_sha"] == head(forge, repo, "work")
    commit = rest_commit(forge, forge_token, repo, result["commit_sha"])["commit"]
    assert commit["verification"]["verified"] is False
    assert commit_paths(forge) == {"graphql": 0, "git_data": 0, "rules": 1}
