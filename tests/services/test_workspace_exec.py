"""Commands and tests in a workspace: output, caps, timeouts, env, workdir, venv, progress."""

from __future__ import annotations

import asyncio
import resource
import secrets
import sys
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError

try:
    from .test_workspace_support import (
        eventually,
        git,
        make_remote,
        manager,
        new_manager,
        processes_matching,
        remote,
    )
except ImportError:
    from test_workspace_support import (
        eventually,
        git,
        make_remote,
        manager,
        new_manager,
        processes_matching,
        remote,
    )

__all__ = ["manager", "remote"]

REPO = "octo/demo"
PY = sys.executable  # has pytest
# The server's interpreter (the one with pytest) lives where the sandbox shows nothing;
# these tests are about output handling, so they run it unsandboxed. Sandboxed runs:
# test_workspace_security.py and tests/security/.
WITH_PY = {"sandbox": "none"}

TESTS = {
    "test_calc.py": (
        "def test_adds():\n    assert 1 + 1 == 2\n\n"
        "def test_breaks():\n    assert 2 + 2 == 5, 'math is broken'\n\n"
        "import pytest\n\n@pytest.mark.skip(reason='later')\ndef test_later():\n    pass\n"
    ),
    "test_units.py": (
        "import unittest\n\nclass T(unittest.TestCase):\n"
        "    def test_ok(self):\n        self.assertTrue(True)\n"
        "    def test_no(self):\n        self.assertEqual(1, 2)\n"
    ),
}


async def test_run_clones_on_first_use_and_reports(manager, remote):
    res = await manager.run(REPO, "main", "cat README.md; echo err >&2; exit 3")
    assert res.exit_code == 3 and not res.timed_out and res.killed_by is None
    assert res.stdout == "demo\n" and res.stderr == "err\n"
    assert not res.stdout_truncated and not res.stderr_truncated
    assert res.timeout_s == manager.config.default_timeout_s
    pwd = await manager.run(REPO, "main", "pwd -P")
    assert pwd.stdout.strip() == str(manager.workspace_dir(REPO, "main") / "repo")


async def test_output_is_capped_head_and_tail(tmp_path, remote):
    mgr = new_manager(tmp_path, stdout_max_chars=1000, stderr_max_chars=500, **WITH_PY)
    cmd = (
        f"{PY} -c \"import sys; print('HEAD-MARK' + 'x' * 100000 + 'TAIL-MARK');"
        " sys.stderr.write('E-HEAD' + 'e' * 50000 + 'E-TAIL')\""
    )
    res = await mgr.run(REPO, "main", cmd)
    assert res.stdout_truncated and res.stderr_truncated
    assert res.stdout.startswith("HEAD-MARK") and res.stdout.rstrip().endswith("TAIL-MARK")
    assert "characters truncated" in res.stdout and len(res.stdout) < 1100
    assert res.stderr.startswith("E-HEAD") and res.stderr.endswith("E-TAIL")
    assert len(res.stderr) < 600


async def test_huge_output_does_not_blow_memory(manager, remote):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    res = await manager.run(REPO, "main", "head -c 300000000 /dev/zero | tr '\\0' 'a'; echo")
    after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert res.exit_code == 0 and res.stdout_truncated
    assert len(res.stdout) < 13000
    assert (after - before) < 100 * 1024, "server memory grew with the command's output"


async def test_timeout_kills_the_whole_tree(manager, remote):
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    cmd = (
        f"sleep {mark}1 & setsid sleep {mark}2 & "
        f"(setsid bash -c 'sleep {mark}3 & exec sleep {mark}4' &) ; "
        f"nohup sleep {mark}5 >/dev/null 2>&1 & "
        f"trap '' TERM; echo started; sleep {mark}6"
    )
    # each sleep lasts over 1000 s, so an answer at all shows the tree was killed (the
    # bound only turns a hang into a failure; it is not a speed check)
    res = await asyncio.wait_for(manager.run(REPO, "main", cmd, timeout_s=1.5), 300)
    assert res.timed_out and res.killed_by == "timeout" and res.exit_code is None
    assert res.stdout == "started\n"
    assert processes_matching(mark) == []


async def test_timeout_without_cgroups_still_kills_setsid_daemons(tmp_path, remote):
    # The unsandboxed mode's own net: the run's environment marker and a /proc walk.
    mgr = new_manager(tmp_path, use_cgroups=False, run_as_user=None, sandbox="none")
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    cmd = (
        f"(setsid bash -c 'sleep {mark}1 & sleep {mark}2' &); setsid sleep {mark}3 & sleep {mark}4"
    )
    res = await mgr.run(REPO, "main", cmd, timeout_s=1)
    assert res.timed_out
    assert processes_matching(mark) == []


async def test_background_jobs_do_not_outlive_the_command(manager, remote):
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    # the background sleep lasts over 1000 s: an answer means the run did not wait for it
    res = await asyncio.wait_for(manager.run(REPO, "main", f"sleep {mark} & echo done"), 300)
    assert res.exit_code == 0 and res.stdout == "done\n"
    assert processes_matching(mark) == []


async def test_cancellation_kills_the_command(manager, remote):
    await manager.ensure_clone(REPO, "main")
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    task = asyncio.create_task(manager.run(REPO, "main", f"sleep {mark}"))
    await eventually(lambda: processes_matching(mark), "the command to start")
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert processes_matching(mark) == []
    assert (await manager.run(REPO, "main", "echo still serving")).exit_code == 0


async def test_progress_is_reported_while_running(tmp_path, remote):
    mgr = new_manager(tmp_path, progress_interval_s=0.3)
    seen: list[tuple[float, str]] = []

    async def on_progress(elapsed: float, message: str) -> None:
        seen.append((elapsed, message))

    res = await mgr.run(REPO, "main", "echo step-one; sleep 1.5", on_progress=on_progress)
    assert res.exit_code == 0
    assert len(seen) >= 3
    assert [e for e, _ in seen] == sorted(e for e, _ in seen)
    assert "step-one" in seen[-1][1] and "timeout" in seen[-1][1]
    # A failing progress sink does not break the command.
    res = await mgr.run(REPO, "main", "sleep 0.7", on_progress=lambda e, m: 1 / 0)
    assert res.exit_code == 0


async def test_environment_is_scrubbed(manager, remote, monkeypatch):
    secrets_env = {
        "GITHUB_TOKEN": "ghp_leak_github_token",
        "GH_TOKEN": "gh_leak_cli_token",
        "GITHUB_PAT": "leak_pat",
        "GITHUB_MCP_AUTH_TOKENS": "leak_mcp_bearer",
        "GITHUB_APP_PRIVATE_KEY": "-----BEGIN leak key-----",
        "GITHUB_APP_ID": "leak_app_id_424242",
        "MY_SERVICE_TOKEN": "leak_service_token",
        "DB_SECRET": "leak_db_secret",
        "AWS_SECRET_ACCESS_KEY": "leak_aws",
        "OPENAI_API_KEY": "leak_openai",
        "SERVER_ONLY_SETTING": "leak_server_setting",
    }
    for key, value in secrets_env.items():
        monkeypatch.setenv(key, value)
    res = await manager.run(REPO, "main", "env; cat /proc/self/environ | tr '\\0' '\\n'")
    assert res.exit_code == 0
    for key, value in secrets_env.items():
        assert value not in res.stdout, key
        assert f"{key}=" not in res.stdout, key
    env = dict(line.split("=", 1) for line in res.stdout.splitlines() if "=" in line)
    ws = manager.workspace_dir(REPO, "main")
    assert env["HOME"] == str(ws / "home") and env["TMPDIR"] == str(ws / "tmp")
    assert env["GIT_TERMINAL_PROMPT"] == "0"


async def test_allowlist_cannot_let_secrets_through(tmp_path, remote, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_allowlisted_leak")
    monkeypatch.setenv("EXTRA_OK", "fine")
    mgr = new_manager(tmp_path, env_allowlist=("PATH", "GITHUB_TOKEN", "EXTRA_OK"))
    res = await mgr.run(REPO, "main", "env")
    assert "ghp_allowlisted_leak" not in res.stdout and "EXTRA_OK=fine" in res.stdout


@pytest.mark.parametrize("workdir", ["../..", "/etc", "src/../../..", "link-out", "nope"])
async def test_workdir_must_stay_inside_the_clone(manager, remote, tmp_path, workdir):
    state = await manager.ensure_clone(REPO, "main")
    (Path(state.path) / "link-out").symlink_to(tmp_path)
    with pytest.raises(GitHubMCPError) as err:
        await manager.run(REPO, "main", "pwd", workdir=workdir)
    assert err.value.code == ErrorCode.INVALID_INPUT


async def test_workdir_inside_the_clone(manager, remote):
    state = await manager.ensure_clone(REPO, "main")
    (Path(state.path) / "link-in").symlink_to(Path(state.path) / "src")
    res = await manager.run(REPO, "main", "pwd -P; ls", workdir="src")
    assert res.stdout == f"{state.path}/src\napp.py\n"
    res = await manager.run(REPO, "main", "ls", workdir="link-in")
    assert res.stdout == "app.py\n"


@pytest.mark.parametrize(
    "ref",
    [
        "main; touch /tmp/pwned",
        "$(touch /tmp/pwned)",
        "`touch /tmp/pwned`",
        "main && id",
        "a b",
        "-main",
        "--upload-pack=touch /tmp/pwned",
        "a..b",
        "x:y",
        "main|id",
        "a\nb",
        "",
        "x" * 256,
        ".hidden",
        "ends.lock",
        "HEAD@{1}",
    ],
)
async def test_bad_refs_never_reach_a_process(manager, remote, ref):
    marker = Path("/tmp/pwned")
    marker.unlink(missing_ok=True)
    for call in (
        manager.ensure_clone(REPO, ref),
        manager.run(REPO, ref, "true"),
        manager.run_tests(REPO, ref, "true"),
        manager.changes_summary(REPO, ref),
        manager.commit(REPO, ref, "m"),
        manager.refresh_after_api_commit(REPO, ref),
    ):
        with pytest.raises(GitHubMCPError) as err:
            await call
        assert err.value.code == ErrorCode.INVALID_INPUT
    assert not marker.exists()
    assert not (manager.config.root / "octo__demo").exists()


@pytest.mark.parametrize("name", ["octo/demo; id", "../etc", "octo", "a/b/c", "../..", "o/..", ""])
async def test_bad_full_names(manager, name):
    with pytest.raises(GitHubMCPError) as err:
        await manager.ensure_clone(name, "main")
    assert err.value.code == ErrorCode.INVALID_INPUT


@pytest.mark.parametrize("timeout", [0, -1, "10", True])
async def test_bad_timeouts_and_commands(manager, remote, timeout):
    with pytest.raises(GitHubMCPError) as err:
        await manager.run(REPO, "main", "true", timeout_s=timeout)
    assert err.value.code == ErrorCode.INVALID_INPUT
    for command in ("", "   ", "a\0b", "x" * 40000):
        with pytest.raises(GitHubMCPError) as err:
            await manager.run(REPO, "main", command)
        assert err.value.code == ErrorCode.INVALID_INPUT


async def test_timeout_is_clamped_to_the_maximum(tmp_path, remote):
    mgr = new_manager(tmp_path, max_timeout_s=5)
    res = await mgr.run(REPO, "main", "true", timeout_s=99999)
    assert res.timeout_s == 5 and res.exit_code == 0


async def test_venv_created_once_put_first_and_excluded(manager, remote):
    res = await manager.run(REPO, "main", "echo $VIRTUAL_ENV; command -v python", use_venv=True)
    venv = manager.workspace_dir(REPO, "main") / "repo" / ".venv-mcp"
    assert res.exit_code == 0, res.stderr
    assert res.stdout.splitlines() == [str(venv), str(venv / "bin" / "python")]
    cfg = venv / "pyvenv.cfg"
    stamp = cfg.stat().st_mtime_ns
    again = await manager.run(
        REPO, "main", "python -c 'import sys; print(sys.prefix)'", use_venv=True
    )
    assert again.stdout.strip() == str(venv) and cfg.stat().st_mtime_ns == stamp
    plain = await manager.run(REPO, "main", "echo ${VIRTUAL_ENV:-none}")
    assert plain.stdout.strip() == "none"
    exclude = (venv.parent / ".git" / "info" / "exclude").read_text()
    assert "/.venv-mcp/" in exclude.splitlines()
    summary = await manager.changes_summary(REPO, "main")
    assert not summary.dirty


async def test_run_tests_pytest_through_junit(tmp_path):
    make_remote(tmp_path, files=TESTS)
    mgr = new_manager(tmp_path, **WITH_PY)
    res = await mgr.run_tests(REPO, "main", f"{PY} -m pytest -q test_calc.py", use_venv=False)
    assert res.parsed_from == "junit"
    assert (res.passed, res.failed, res.errors, res.skipped) == (1, 1, 0, 1)
    assert res.exit_code == 1 and not res.timed_out
    assert [f.name for f in res.failing] == ["test_calc.py::test_breaks"]
    assert "math is broken" in res.failing[0].message
    assert "1 failed" in res.output_tail
    ws = mgr.workspace_dir(REPO, "main")
    assert list((ws / "tmp").glob("junit-*")) == []  # scratch report removed
    summary = await mgr.changes_summary(REPO, "main")
    assert not summary.dirty, summary.status  # nothing written into the tree


async def test_run_tests_other_runner_through_summary_lines(tmp_path):
    make_remote(tmp_path, files=TESTS)
    mgr = new_manager(tmp_path, **WITH_PY)
    res = await mgr.run_tests(REPO, "main", f"{PY} -m unittest test_units", use_venv=False)
    assert res.parsed_from == "summary"
    assert res.failed == 1 and res.passed == 1
    assert res.exit_code == 1
    assert any("test_no" in f.name for f in res.failing)


async def test_run_tests_pytest_in_a_pipeline_uses_summary(tmp_path):
    make_remote(tmp_path, files=TESTS)
    mgr = new_manager(tmp_path, **WITH_PY)
    res = await mgr.run_tests(REPO, "main", f"{PY} -m pytest test_calc.py | cat", use_venv=False)
    assert res.parsed_from == "summary" and (res.passed, res.failed, res.skipped) == (1, 1, 1)


async def test_run_tests_timeout(tmp_path):
    make_remote(
        tmp_path, files={"test_slow.py": "import time\n\ndef test_slow():\n    time.sleep(60)\n"}
    )
    mgr = new_manager(tmp_path, **WITH_PY)
    res = await mgr.run_tests(REPO, "main", f"{PY} -m pytest -q", timeout_s=3, use_venv=False)
    assert res.timed_out and res.exit_code is None and res.killed_by == "timeout"


async def test_run_tests_ignores_a_planted_report_symlink(tmp_path):
    outside = tmp_path / "outside.xml"
    outside.write_text('<testsuite tests="99" failures="99"></testsuite>')
    # After pytest wrote its report, the project's own code swaps it for a symlink.
    conftest = (
        "import glob, os\n\n"
        "def pytest_unconfigure(config):\n"
        "    for f in glob.glob(os.environ['TMPDIR'] + '/junit-*.xml'):\n"
        f"        os.unlink(f); os.symlink({str(outside)!r}, f)\n"
    )
    make_remote(
        tmp_path, files={"test_ok.py": "def test_ok():\n    pass\n", "conftest.py": conftest}
    )
    mgr = new_manager(tmp_path, **WITH_PY)
    res = await mgr.run_tests(REPO, "main", f"{PY} -m pytest -q", use_venv=False)
    assert res.failed != 99 and res.passed == 1 and res.parsed_from == "summary"


async def test_other_clone_unaffected_by_commands(manager, remote, tmp_path):
    make_remote(tmp_path, "octo/other")
    await manager.run(REPO, "main", "echo a > a.txt")
    other = await manager.run("octo/other", "main", "ls a.txt")
    assert other.exit_code != 0
    assert git("status", "--porcelain", cwd=manager.workspace_dir(REPO, "main") / "repo")
