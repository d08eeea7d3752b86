"""Two signed-in users on one hosted server: per-user workspace quotas, and what one user
can never take from the other (an approval, a workspace's outputs). Real MCP OAuth
clients signed in through headless Chromium on the forge; evidence from the forge's
branch heads and from the workspace directories on disk."""

from __future__ import annotations

import secrets
from pathlib import Path

import httpx2 as httpx
import pytest

from tests.conftest import call_tool, error_code, mcp_client, traversable
from tests.oauth.signin import signed_in_client

ORG = "quota-org"
REPO = f"{ORG}/shared-app"  # alice admin (org owner), bob write
PASSWORDS = {"alice": "alice-pass-4827", "bob": "bob-pass-1593"}


@pytest.fixture(scope="module")
def world(forge):
    for login, password in PASSWORDS.items():
        forge.add_user(login, password=password)
    forge.add_org_member(ORG, "alice", role="admin")
    forge.seed_repo(
        REPO,
        {"README.md": "# shared app\n"},
        private=True,
        branches={"work": {"README.md": "# shared app (work)\n"}},
    )
    forge.add_collaborator(REPO, "bob", role="write")
    return forge


def branch_head(forge, branch: str) -> str | None:
    admin = forge.create_token(login="octocat")
    response = httpx.get(
        f"{forge.base_url}/repos/{REPO}/git/ref/heads/{branch}",
        headers={"Authorization": f"Bearer {admin}"},
    )
    return response.json()["object"]["sha"] if response.status_code == 200 else None


def user_root(server, login: str) -> Path:
    return Path(server.settings.workspace_dir) / "users" / login


def clone_dirs(server, login: str) -> list[Path]:
    group = user_root(server, login) / "quota-org__shared-app"
    return sorted(d for d in group.iterdir() if (d / "repo").is_dir()) if group.is_dir() else []


def start(oauth_server, tmp_path: Path, **overrides):
    # a root the sandbox's unprivileged user can pass through (pytest's tmp is 0700)
    return oauth_server(workspace_dir=traversable(tmp_path) / "workspaces", **overrides)


def sign_in(server, login: str, **client_options):
    return signed_in_client(server.mcp_url, login, PASSWORDS[login], **client_options)


# -- quotas ----------------------------------------------------------------------------


async def test_clone_quota_is_per_user_and_a_removed_clone_frees_its_slot(
    world, oauth_server, tmp_path
):
    server = start(oauth_server, tmp_path, workspace_max_clones_per_user=1)
    async with sign_in(server, "alice") as alice:
        is_error, work = await call_tool(
            alice, "ensure_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert not is_error, work
        is_error, refused = await call_tool(
            alice, "ensure_workspace_clone", {"full_name": REPO, "ref": "main"}
        )
        assert is_error and error_code(refused) == "quota_exceeded", refused
        error = refused["error"]
        assert "GITHUB_MCP_WORKSPACE_MAX_CLONES_PER_USER" in error["message"]
        assert "remove_workspace_clone" in error["hint"]
        assert (error["quota"], error["limit"], error["used"]) == ("clones", 1, 1)
        assert [(c["full_name"], c["ref"]) for c in error["clones"]] == [(REPO, "work")]
        assert len(clone_dirs(server, "alice")) == 1  # nothing was cloned for main

        # bob's quota is his own: alice's clone does not count against it
        async with sign_in(server, "bob") as bob:
            is_error, bobs = await call_tool(
                bob, "ensure_workspace_clone", {"full_name": REPO, "ref": "main"}
            )
            assert not is_error, bobs
        assert len(clone_dirs(server, "bob")) == 1

        # removing her clone frees alice's slot
        is_error, removed = await call_tool(
            alice, "remove_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert not is_error, removed
        assert removed["freed_bytes"] > 0
        assert clone_dirs(server, "alice") == []
        is_error, main = await call_tool(
            alice, "ensure_workspace_clone", {"full_name": REPO, "ref": "main"}
        )
        assert not is_error, main
        assert main["created"]
        # a second removal has nothing to remove
        is_error, again = await call_tool(
            alice, "remove_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert is_error and error_code(again) == "not_found", again
    assert len(clone_dirs(server, "alice")) == 1
    assert len(clone_dirs(server, "bob")) == 1  # bob's clone untouched by alice's removal


async def test_disk_quota_refuses_commands_until_space_is_freed(world, oauth_server, tmp_path):
    limit = 4 * 1024 * 1024
    server = start(oauth_server, tmp_path, workspace_max_bytes_per_user=limit)
    work = {"full_name": REPO, "ref": "work"}
    head_before = branch_head(world, "work")
    async with sign_in(server, "alice") as alice:
        is_error, clone = await call_tool(alice, "ensure_workspace_clone", work)
        assert not is_error, clone
        # under the quota when it starts, so it runs (and overshoots)
        is_error, wrote = await call_tool(
            alice, "terminal_command", {**work, "command": "head -c 6000000 /dev/zero > out.bin"}
        )
        assert not is_error and wrote["exit_code"] == 0, wrote
        is_error, refused = await call_tool(
            alice, "terminal_command", {**work, "command": "echo ran > ran.txt"}
        )
        assert is_error and error_code(refused) == "quota_exceeded", refused
        error = refused["error"]
        assert error["quota"] == "bytes" and error["limit"] == limit
        assert error["used"] >= limit
        assert "GITHUB_MCP_WORKSPACE_MAX_BYTES_PER_USER" in error["message"]
        assert "reset=true" in error["hint"] and "remove_workspace_clone" in error["hint"]
        assert error["clones"][0]["ref"] == "work" and error["clones"][0]["bytes"] >= 6_000_000
        (ws_dir,) = clone_dirs(server, "alice")
        assert not (ws_dir / "repo" / "ran.txt").exists()  # the refused command never ran
        is_error, tests = await call_tool(alice, "run_tests", {**work, "use_venv": False})
        assert is_error and error_code(tests) == "quota_exceeded", tests
        # a new clone is refused too
        is_error, other = await call_tool(
            alice, "ensure_workspace_clone", {"full_name": REPO, "ref": "main"}
        )
        assert is_error and error_code(other) == "quota_exceeded", other
        assert len(clone_dirs(server, "alice")) == 1

        # work can still be saved over the quota: a commit is never refused
        is_error, committed = await call_tool(
            alice, "commit_workspace", {**work, "message": "keep out.bin", "paths": ["out.bin"]}
        )
        assert not is_error, committed

        # bob's disk is his own
        async with sign_in(server, "bob") as bob:
            is_error, bobs = await call_tool(
                bob, "terminal_command", {**work, "command": "echo bob > bob.txt"}
            )
            assert not is_error and bobs["exit_code"] == 0, bobs

        # reset=true drops the local commit and untracked outputs: space is back
        is_error, reset = await call_tool(alice, "ensure_workspace_clone", {**work, "reset": True})
        assert not is_error, reset
        assert not (ws_dir / "repo" / "out.bin").exists()
        is_error, ran = await call_tool(
            alice, "terminal_command", {**work, "command": "echo ran > ran.txt"}
        )
        assert not is_error and ran["exit_code"] == 0, ran
    assert (ws_dir / "repo" / "ran.txt").read_text() == "ran\n"
    assert branch_head(world, "work") == head_before  # the local commit was never pushed
    assert (clone_dirs(server, "bob")[0] / "repo" / "bob.txt").exists()


# -- what one user can never take from another --------------------------------------------


async def test_bob_cannot_use_alices_approval(world, oauth_server, tmp_path):
    server = start(oauth_server, tmp_path, approval_mode="tool")
    head_before = branch_head(world, "main")
    # alice's client holds a session (an approval window needs one)
    async with (
        sign_in(server, "alice", mode="legacy") as alice,
        sign_in(server, "bob", mode="legacy") as bob,
    ):
        is_error, approval = await call_tool(alice, "authorize_write_actions", {"approved": True})
        assert not is_error and approval["approved"], approval
        assert approval["principal"] == "alice"
        write = {
            "full_name": REPO,
            "branch": "main",
            "message": "bob writes to main",
            "files": [{"path": "bob.md", "content": "bob was here\n"}],
        }
        is_error, refused = await call_tool(bob, "commit_files", write)
        assert is_error and error_code(refused) == "write_not_allowed", refused
        assert refused["error"]["reason"] == "default_branch"
        assert branch_head(world, "main") == head_before  # nothing reached GitHub
        # a second try is refused the same: alice's approval never becomes bob's
        is_error, again = await call_tool(
            bob, "commit_files", {**write, "message": "bob tries again"}
        )
        assert is_error and error_code(again) == "write_not_allowed", again
        assert branch_head(world, "main") == head_before
        # the control: alice's approval does let alice write to main
        is_error, hers = await call_tool(
            alice,
            "commit_files",
            {**write, "message": "alice writes", "files": [{"path": "alice.md", "content": "a\n"}]},
        )
        assert not is_error, hers
    assert branch_head(world, "main") == hers["commit_sha"] != head_before


async def test_bob_cannot_see_alices_workspace_outputs(world, oauth_server, tmp_path):
    # the default sandbox (bubblewrap): each command sees only its own user's clone
    server = start(oauth_server, tmp_path)
    marker = f"alice-secret-{secrets.token_hex(8)}"
    work = {"full_name": REPO, "ref": "work"}
    async with sign_in(server, "alice") as alice:
        is_error, made = await call_tool(
            alice,
            "terminal_command",
            {**work, "command": f"echo {marker} > output.txt && echo {marker} > ~/notes.txt"},
        )
        assert not is_error and made["exit_code"] == 0, made
    (alice_ws,) = clone_dirs(server, "alice")
    alice_output = alice_ws / "repo" / "output.txt"
    assert alice_output.read_text().strip() == marker  # it is there, on the host

    async with sign_in(server, "bob") as bob:
        is_error, summary = await call_tool(bob, "get_workspace_changes_summary", work)
        assert is_error and error_code(summary) == "not_found", summary  # alice's is not his
        probe = (
            f"cat output.txt ~/notes.txt {alice_output} {alice_ws}/home/notes.txt; "
            f"ls -a {alice_ws.parent} {user_root(server, 'alice')}; true"
        )
        is_error, looked = await call_tool(bob, "terminal_command", {**work, "command": probe})
        assert not is_error, looked
        assert marker not in looked["stdout"] + looked["stderr"], looked
        assert looked["stderr"].count("No such file or directory") >= 4, looked  # it ran
        is_error, summary = await call_tool(bob, "get_workspace_changes_summary", work)
        assert not is_error, summary
        assert "output.txt" not in str(summary["status"])  # his clone is his own, clean
        # and his outputs stay out of alice's clone
        is_error, _ = await call_tool(bob, "terminal_command", {**work, "command": "echo b > o"})
    assert not (alice_ws / "repo" / "o").exists()
    (bob_ws,) = clone_dirs(server, "bob")
    assert bob_ws != alice_ws and (bob_ws / "repo" / "o").exists()


async def test_without_sign_in_the_quota_bounds_the_shared_root(world, make_runtime, tmp_path):
    # bearer or none: one workspace root for every caller, under the same settings
    rt = make_runtime(
        workspace_dir=traversable(tmp_path) / "shared", workspace_max_clones_per_user=1
    )
    async with mcp_client(rt) as client:
        is_error, first = await call_tool(
            client, "ensure_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert not is_error, first
        is_error, refused = await call_tool(
            client, "ensure_workspace_clone", {"full_name": REPO, "ref": "main"}
        )
        assert is_error and error_code(refused) == "quota_exceeded", refused
    root = Path(rt.settings.workspace_dir)
    assert not (root / "users").exists()
    clones = [d for d in (root / "quota-org__shared-app").iterdir() if (d / "repo").is_dir()]
    assert len(clones) == 1
