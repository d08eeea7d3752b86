"""Workspace clones: blobless cloning, fetch/reset, state, commits, pushes, refresh, locks."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

try:
    from .test_workspace_support import eventually, git, make_remote, manager, new_manager, remote
except ImportError:
    from test_workspace_support import eventually, git, make_remote, manager, new_manager, remote

__all__ = ["manager", "remote"]  # fixtures used by name

REPO = "octo/demo"


async def test_first_clone_is_blobless_and_reports_state(manager, remote):
    remote.commit({"big.txt": "old content\n" * 1000}, "history")
    remote.commit({"big.txt": "new\n"}, "rewrite")
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    assert state.created and state.kind == "branch" and state.branch == "main"
    assert state.head_sha == state.remote_sha == remote.head()
    assert (state.ahead, state.behind, state.dirty) == (0, 0, False)
    assert git("config", "remote.origin.partialclonefilter", cwd=path).strip() == "blob:none"
    assert git("config", "remote.origin.promisor", cwd=path).strip() == "true"
    # The old version of big.txt was never downloaded.
    missing = git("rev-list", "--objects", "--all", "--missing=print", cwd=path)
    assert any(line.startswith("?") for line in missing.splitlines())
    assert (path / "big.txt").read_text() == "new\n"
    assert path.parent.parent.name == "octo__demo"


async def test_second_call_fetches_and_reports_ahead_behind_dirty(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / "local.txt").write_text("mine\n")
    git("add", "local.txt", cwd=path)
    git("commit", "-q", "-m", "local", cwd=path)
    remote.commit({"a.txt": "1\n"}, "up 1")
    remote.commit({"b.txt": "2\n"}, "up 2")
    (path / "README.md").write_text("edited\n")
    state = await manager.ensure_clone(REPO, "main")
    assert not state.created
    assert state.remote_sha == remote.head()
    assert (state.ahead, state.behind) == (1, 2)
    assert state.dirty and state.changed_files == ["README.md"]
    assert not (path / "a.txt").exists()  # fetch only: the work tree is untouched


async def test_reset_matches_remote_keeps_venv_and_removes_untracked(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / ".venv-mcp" / "bin").mkdir(parents=True)
    (path / ".venv-mcp" / "bin" / "keep").write_text("x")
    (path / "junk.txt").write_text("junk")
    (path / "build").mkdir()
    (path / "build" / "out.o").write_text("o")
    (path / ".gitignore").write_text("ignored.log\n")
    (path / "ignored.log").write_text("log")
    (path / "README.md").write_text("changed\n")
    git("add", "README.md", cwd=path)
    git("commit", "-q", "-m", "local", cwd=path)
    new_head = remote.commit({"c.txt": "3\n"}, "up")
    state = await manager.ensure_clone(REPO, "main", reset=True)
    assert state.reset and state.head_sha == new_head
    assert (state.ahead, state.behind, state.dirty) == (0, 0, False)
    assert (path / ".venv-mcp" / "bin" / "keep").exists()
    for gone in ("junk.txt", "build", ".gitignore", "ignored.log"):
        assert not (path / gone).exists(), gone
    assert (path / "README.md").read_text() == "demo\n"
    assert (path / "c.txt").exists()


async def test_tag_and_commit_refs(manager, remote, tmp_path):
    first = remote.head()
    git("tag", "v1.0", first, cwd=remote.bare)
    remote.commit({"later.txt": "x\n"})
    tag = await manager.ensure_clone(REPO, "v1.0")
    assert tag.kind == "tag" and tag.branch is None and tag.head_sha == first
    commit = await manager.ensure_clone(REPO, first)
    assert commit.kind == "commit" and commit.head_sha == first and commit.remote_sha == first
    assert tag.path != commit.path
    # A commit that no branch contains any more is still fetched by its full SHA.
    orphan = remote.commit({"gone.txt": "x\n"}, branch="tmp")
    git("update-ref", "-d", "refs/heads/tmp", cwd=remote.bare)
    state = await manager.ensure_clone(REPO, orphan)
    assert state.head_sha == orphan
    again = await manager.ensure_clone(REPO, orphan, reset=True)
    assert again.head_sha == orphan and not again.dirty


async def test_missing_ref_and_repo_are_not_found(manager, remote):
    with pytest.raises(GitHubMCPError) as err:
        await manager.ensure_clone(REPO, "no-such-branch")
    assert err.value.code == ErrorCode.NOT_FOUND
    with pytest.raises(GitHubMCPError) as err:
        await manager.ensure_clone("octo/missing", "main")
    assert err.value.code == ErrorCode.NOT_FOUND
    with pytest.raises(GitHubMCPError) as err:
        await manager.ensure_clone(REPO, "deadbeefdeadbeef")
    assert err.value.code == ErrorCode.NOT_FOUND


async def test_deleted_remote_branch_on_fetch(manager, remote):
    remote.commit({"f.txt": "x\n"}, branch="feature")
    await manager.ensure_clone(REPO, "feature")
    git("update-ref", "-d", "refs/heads/feature", cwd=remote.bare)
    with pytest.raises(GitHubMCPError) as err:
        await manager.ensure_clone(REPO, "feature")
    assert err.value.code == ErrorCode.NOT_FOUND


async def test_broken_workspace_needs_reset(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    git_dir = Path(state.path) / ".git"
    await manager.run(REPO, "main", "rm -rf .git")
    assert not git_dir.exists()
    with pytest.raises(GitHubMCPError) as err:
        await manager.run(REPO, "main", "true")
    assert err.value.code == ErrorCode.CONFLICT and "reset" in (err.value.hint or "")
    state = await manager.ensure_clone(REPO, "main", reset=True)
    assert state.created and state.head_sha == remote.head()


async def test_changes_summary(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / "README.md").write_text("demo\nmore\nlines\n")
    (path / "src" / "app.py").unlink()
    (path / "new.txt").write_text("a\nb\n")
    (path / ".venv-mcp").mkdir()
    (path / ".venv-mcp" / "x").write_text("x")
    summary = await manager.changes_summary(REPO, "main")
    assert summary.branch == "main" and summary.dirty
    assert summary.head_sha == remote.head()
    status = {s["path"]: s["status"] for s in summary.status}
    assert status == {"README.md": "modified", "src/app.py": "deleted", "new.txt": "untracked"}
    assert summary.diffstat == {"files": 3, "insertions": 4, "deletions": 1}


async def test_changes_summary_without_clone(manager):
    with pytest.raises(GitHubMCPError) as err:
        await manager.changes_summary(REPO, "main")
    assert err.value.code == ErrorCode.NOT_FOUND


async def test_commit_all_excludes_venv_and_pushes(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / ".gitignore").write_text("!.venv-mcp\n")  # even a negation cannot include it
    (path / ".venv-mcp").mkdir()
    (path / ".venv-mcp" / "pyvenv.cfg").write_text("home = /usr\n")
    (path / "feature.py").write_text("print('hi')\n")
    await manager.run(REPO, "main", "git add -f .venv-mcp")  # a user command staging it
    result = await manager.commit(REPO, "main", "Add feature", push=True)
    paths = {f.path for f in result.files}
    assert paths == {".gitignore", "feature.py"}
    assert result.pushed and not result.forced
    assert remote.head() == result.commit_sha
    tree = git("ls-tree", "-r", "--name-only", result.commit_sha, cwd=remote.bare)
    assert ".venv-mcp/pyvenv.cfg" not in tree and "feature.py" in tree
    author = git("log", "-1", "--format=%an <%ae>|%cn", result.commit_sha, cwd=remote.bare)
    assert author.strip() == "GitHub MCP <github-mcp@users.noreply.github.com>|GitHub MCP"
    state = await manager.ensure_clone(REPO, "main")
    assert (state.ahead, state.behind) == (0, 0)


async def test_commit_selected_paths_only(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / "one.txt").write_text("1\n")
    (path / "two.txt").write_text("2\n")
    (path / "README.md").write_text("changed\n")
    git("add", "README.md", cwd=path)  # staged by the user, but not in `paths`
    result = await manager.commit(REPO, "main", "only one", paths=["one.txt"])
    assert [f.path for f in result.files] == ["one.txt"] and not result.pushed
    assert remote.head() != result.commit_sha  # not pushed
    changed = git("show", "--name-only", "--format=", result.commit_sha, cwd=path).split()
    assert changed == ["one.txt"]
    summary = await manager.changes_summary(REPO, "main")
    assert {s["path"] for s in summary.status} == {"two.txt", "README.md"}
    assert summary.ahead == 1


@pytest.mark.parametrize(
    "paths", [["../outside"], ["/etc/passwd"], [".git/config"], [".venv-mcp/x"], ["a/./b"], []]
)
async def test_commit_rejects_bad_paths(manager, remote, paths):
    await manager.ensure_clone(REPO, "main")
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "msg", paths=paths)
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_commit_rejects_path_through_symlink_out(manager, remote, tmp_path):
    state = await manager.ensure_clone(REPO, "main")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("s")
    (Path(state.path) / "link").symlink_to(outside)
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "msg", paths=["link/secret.txt"])
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_nothing_to_commit(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    (Path(state.path) / ".venv-mcp").mkdir()
    (Path(state.path) / ".venv-mcp" / "x").write_text("x")
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "empty")
    assert err.value.code == ErrorCode.INVALID_INPUT
    assert "nothing to commit" in err.value.message and err.value.hint
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "   ")
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_push_lease_conflict_when_remote_moved(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    (Path(state.path) / "mine.txt").write_text("mine\n")
    moved = remote.commit({"theirs.txt": "theirs\n"}, "someone else")
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "mine", push=True)
    assert err.value.code == ErrorCode.CONFLICT
    assert err.value.details["expected_remote_sha"] == state.head_sha
    assert remote.head() == moved  # nothing was overwritten
    local = await manager.ensure_clone(REPO, "main")
    assert local.head_sha == err.value.details["commit_sha"]
    assert (local.ahead, local.behind) == (1, 1)


async def test_push_after_local_rewrite_needs_force_and_is_leased(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    (path / "x.txt").write_text("x\n")
    first = await manager.commit(REPO, "main", "x", push=True)
    assert first.pushed and not first.forced and remote.head() == first.commit_sha
    await manager.run(REPO, "main", "git commit -q --amend -m 'x, reworded'")
    (path / "y.txt").write_text("y\n")
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "y", push=True)
    assert err.value.code == ErrorCode.CONFLICT and "force" in err.value.hint
    assert remote.head() == first.commit_sha  # nothing was pushed
    (path / "z.txt").write_text("z\n")
    result = await manager.commit(REPO, "main", "z", push=True, force=True)
    assert result.forced and remote.head() == result.commit_sha
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "main", "no push", force=True)
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_push_refused_for_tags(manager, remote):
    git("tag", "v1", remote.head(), cwd=remote.bare)
    state = await manager.ensure_clone(REPO, "v1")
    (Path(state.path) / "x.txt").write_text("x\n")
    with pytest.raises(GitHubMCPError) as err:
        await manager.commit(REPO, "v1", "x", push=True)
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_refresh_after_api_commit(manager, remote):
    assert await manager.refresh_after_api_commit(REPO, "main") == "no_clone"
    state = await manager.ensure_clone(REPO, "main")
    path = Path(state.path)
    assert await manager.refresh_after_api_commit(REPO, "main") == "up_to_date"
    new = remote.commit({"api.txt": "via api\n"}, "api commit")
    assert await manager.refresh_after_api_commit(REPO, "main") == "fast_forwarded"
    assert git("rev-parse", "HEAD", cwd=path).strip() == new
    assert (path / "api.txt").read_text() == "via api\n"
    # Dirty: left alone, and reported behind afterwards.
    (path / "README.md").write_text("work in progress\n")
    newer = remote.commit({"api2.txt": "again\n"}, "api commit 2")
    assert await manager.refresh_after_api_commit(REPO, "main") == "dirty_left_behind"
    assert git("rev-parse", "HEAD", cwd=path).strip() == new
    assert (path / "README.md").read_text() == "work in progress\n"
    state = await manager.ensure_clone(REPO, "main")
    assert state.behind == 1 and state.remote_sha == newer
    # Clean but with a local commit: not fast-forwardable.
    git("checkout", "-q", "--", "README.md", cwd=path)
    (path / "local.txt").write_text("l\n")
    await manager.commit(REPO, "main", "local")
    remote.commit({"api3.txt": "3\n"}, "api commit 3")
    assert await manager.refresh_after_api_commit(REPO, "main") == "diverged_left_behind"


async def test_refresh_never_waits_for_a_running_command(manager, remote):
    clone = Path((await manager.ensure_clone(REPO, "main")).path)
    # the command runs until the test lets it go: the refresh meets it mid-run
    hold = "touch started; while [ ! -e go ]; do sleep 0.02; done"
    task = asyncio.create_task(manager.run(REPO, "main", hold, timeout_s=120))
    await eventually(lambda: (clone / "started").exists(), "the command to start")
    assert await manager.refresh_after_api_commit(REPO, "main") == "busy_left_behind"
    (clone / "go").touch()
    assert (await task).exit_code == 0


def _span(stdout: str) -> tuple[float, float]:
    start, end = (float(line.split()[1]) for line in stdout.split("\n") if line.strip())
    return start, end


async def test_lock_serialises_one_clone_and_not_two(manager, remote, tmp_path):
    make_remote(tmp_path, "octo/other")
    cmd = "echo start $(date +%s.%N); sleep 0.8; echo end $(date +%s.%N)"
    await manager.ensure_clone(REPO, "main")
    await manager.ensure_clone("octo/other", "main")
    a, b = await asyncio.gather(manager.run(REPO, "main", cmd), manager.run(REPO, "main", cmd))
    (s1, e1), (s2, e2) = sorted([_span(a.stdout), _span(b.stdout)])
    assert s2 >= e1, "two commands overlapped on one clone"
    c, d = await asyncio.gather(
        manager.run(REPO, "main", cmd), manager.run("octo/other", "main", cmd)
    )
    (s1, e1), (s2, e2) = sorted([_span(c.stdout), _span(d.stdout)])
    assert s2 < e1, "commands on two clones did not run concurrently"


async def test_workspace_dirs_are_distinct_and_safe(tmp_path):
    mgr = new_manager(tmp_path)
    a = mgr.workspace_dir("Octo/Demo", "feature/x")
    b = mgr.workspace_dir("octo/demo", "feature_x")
    assert a != b and a.parent == b.parent
    assert a.parent.parent == mgr.config.root
    assert a.name.startswith("feature_x-")
    odd = mgr.workspace_dir("o/r", "we+ird=ref")
    assert odd.parent.name == "o__r" and odd.name.startswith("we_ird_ref-")


async def test_start_up_removes_locks_left_by_a_killed_run(tmp_path, remote, caplog):
    mgr = new_manager(tmp_path)
    state = await mgr.ensure_clone(REPO, "main")
    git_dir = Path(state.path) / ".git"
    for lock in ("index.lock", "gc.log.lock", "refs/heads/main.lock"):
        (git_dir / lock).write_text("")
    with caplog.at_level("WARNING"):
        restarted = new_manager(tmp_path)  # a new server process over the same root
    assert not any(git_dir.rglob("*.lock"))
    assert "workspace_stale_lock_removed" in caplog.text
    (Path(state.path) / "n.txt").write_text("n\n")
    result = await restarted.commit(REPO, "main", "after restart", push=True)
    assert remote.head() == result.commit_sha
