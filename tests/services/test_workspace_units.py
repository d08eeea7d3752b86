"""Pure pieces of the workspace service: capture, parsing, validation, cgroup planning."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._capture import OutputCapture
from github_mcp.services.workspace._cgroups import parse_mountinfo, plan_cgroups
from github_mcp.services.workspace._git import redact, render_config
from github_mcp.services.workspace._sandbox import bwrap_argv, is_secret_name, scrub_env
from github_mcp.services.workspace._status import (
    is_pytest_command,
    parse_numstat_z,
    parse_porcelain_z,
    runner_hint,
)
from github_mcp.services.workspace._validate import (
    check_clone_url,
    validate_ref,
    validate_repo_path,
)


def test_capture_keeps_everything_under_the_cap():
    cap = OutputCapture(100)
    for chunk in (b"hello ", "wörld".encode()[:3], "wörld".encode()[3:], b"\n"):
        cap.feed(chunk)
    cap.close()
    assert cap.text() == "hello wörld\n" and not cap.truncated


def test_capture_keeps_head_and_tail_with_a_marker():
    cap = OutputCapture(100)
    data = "".join(f"{i:05d}\n" for i in range(10000))
    for i in range(0, len(data), 777):
        cap.feed(data[i : i + 777].encode())
    cap.close()
    out = cap.text()
    assert cap.truncated and cap.total_chars == len(data)
    head, _, rest = out.partition("\n… [")
    assert data.startswith(head) and len(head) == 50
    tail = rest.split("] …\n", 1)[1]
    assert data.endswith(tail) and len(tail) == 50
    assert f"{len(data) - 100} characters truncated" in out
    assert cap.last_line == "09999"


def test_capture_just_over_the_cap_and_parse_tail():
    cap = OutputCapture(10, keep_tail_chars=1000)
    cap.feed(b"0123456789AB")
    cap.close()
    assert cap.text().startswith("01234") and cap.text().endswith("789AB")
    assert cap.tail_text(1000) == "0123456789AB"


@pytest.mark.parametrize(
    "ref",
    ["main", "feature/x-1", "release/v1.2.3", "fix/+123", "user@host", "ünïcode", "a" * 255,
     "0123456789abcdef0123456789abcdef01234567"],
)  # fmt: skip
def test_good_refs(ref):
    assert validate_ref(ref) == ref
    res = subprocess.run(["git", "check-ref-format", "--branch", ref], capture_output=True)
    assert res.returncode == 0  # everything we accept, git accepts too


@pytest.mark.parametrize("path", ["../x", "a/../b", "/abs", "a\\b", ".git/config", "a//b", ""])
def test_bad_repo_paths(path):
    with pytest.raises(GitHubMCPError) as err:
        validate_repo_path(path)
    assert err.value.code == ErrorCode.INVALID_INPUT


def test_clone_url_rules():
    assert check_clone_url("https://github.com/o/r.git")
    assert check_clone_url("http://127.0.0.1:8080/o/r.git")
    assert check_clone_url("http://localhost/o/r.git")
    assert check_clone_url("http://[::1]:9/o/r.git")
    for bad in ("http://github.com/o/r.git", "ssh://git@github.com/o/r", "ext::sh -c id"):
        with pytest.raises(GitHubMCPError):
            check_clone_url(bad)


def test_redact():
    text = "Authorization: Basic abc123== failed; url http://x-access-token:ghs_x@h/r"
    out = redact(text)
    assert "abc123" not in out and "ghs_x" not in out


def test_render_config_round_trips_through_git(tmp_path):
    entries = [
        ("core.repositoryformatversion", "1"),
        ("remote.origin.url", "https://h/o/r.git"),
        ("remote.origin.fetch", "+refs/heads/a:refs/remotes/origin/a"),
        ("remote.origin.fetch", "+refs/heads/b:refs/remotes/origin/b"),
        ("branch.feat.x.y.merge", "refs/heads/feat.x.y"),
        ("user.name", 'Quote " and \\ backslash\ttab'),
    ]
    cfg = tmp_path / "config"
    cfg.write_text(render_config(entries))
    out = subprocess.run(
        ["git", "config", "--file", str(cfg), "--list", "-z"], capture_output=True, text=True
    ).stdout
    got = [tuple(item.split("\n", 1)) for item in out.split("\0") if item]
    assert got == entries


def test_porcelain_and_numstat_parsing():
    out = "R  new.py\0old.py\0 M src/a.py\0?? .venv-mcp/x\0?? n.txt\0UU c.txt\0D  gone\0"
    entries = parse_porcelain_z(out)
    assert [(e.path, e.status, e.orig_path) for e in entries] == [
        ("new.py", "renamed", "old.py"),
        ("src/a.py", "modified", None),
        ("n.txt", "untracked", None),
        ("c.txt", "conflicted", None),
        ("gone", "deleted", None),
    ]
    numstat = "\x00".join(["3\t1\ta.py", "-\t-\timg.png", "2\t0\t", "old", "new", ""])
    assert parse_numstat_z(numstat) == (3, 5, 1)


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("pytest", True),
        ("pytest -q tests/test_a.py -k 'x and y'", True),
        ("python -m pytest -x", True),
        ("python3.11 -m pytest", True),
        ("/opt/venv/bin/pytest tests", True),
        ("PYTHONPATH=src pytest", True),
        ("pytest | tee log", False),
        ("pytest; echo done", False),
        ("pytest && coverage report", False),
        ("pytest > out.txt", False),
        ("pytest # comment", False),
        ("pytest -- tests", False),
        ("cd sub && pytest", False),
        ("python -m unittest", False),
        ("tox -e py311", False),
        ("pytest 'unclosed", False),
        ("pytest\nrm -rf x", False),
    ],
)
def test_pytest_detection(command, expected):
    assert is_pytest_command(command) is expected


def test_runner_hints():
    assert runner_hint("pytest -q") == "pytest"
    assert runner_hint("python -m unittest discover") == "unittest"
    assert runner_hint("go test ./...") == "go"
    assert runner_hint("cargo test --all") == "cargo"
    assert runner_hint("npx vitest run") == "vitest"
    assert runner_hint("npx jest") == "jest"
    assert runner_hint("./mvnw -q test") == "maven"
    assert runner_hint("make check") is None


def test_secret_names_and_scrub():
    for name in ("GITHUB_TOKEN", "GH_HOST", "MY_TOKEN", "DB_PASSWORD", "X_SECRET", "API_KEY",
                 "GITHUB_MCP_AUTH_TOKENS", "AWS_ACCESS_KEY_ID"):  # fmt: skip
        assert is_secret_name(name), name
    for name in ("PATH", "LANG", "TERM", "KEYBOARD", "MONKEY_BUSINESS"):
        assert not is_secret_name(name), name
    env = scrub_env(
        {"PATH": "/bin", "GITHUB_TOKEN": "t", "OTHER": "o"}, ("PATH", "GITHUB_TOKEN"), {}
    )
    assert env == {"PATH": "/bin", "LANG": "C.UTF-8"}


def test_bwrap_argv_shape(tmp_path):
    argv = bwrap_argv("bwrap", workspace_dir=tmp_path, cwd=tmp_path / "repo", allow_network=False)
    assert argv[0] == "bwrap" and argv[-1] == "--"
    for flag in ("--die-with-parent", "--unshare-pid", "--unshare-net", "--new-session"):
        assert flag in argv
    i = argv.index("--bind")
    assert argv[i + 1 : i + 3] == [str(tmp_path), str(tmp_path)]
    assert ["--ro-bind", "/usr", "/usr"] == argv[argv.index("/usr") - 1 : argv.index("/usr") + 2]
    net = bwrap_argv("bwrap", workspace_dir=tmp_path, cwd=tmp_path, allow_network=True)
    assert "--unshare-net" not in net


V1 = """\
35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw
"""
V2 = "30 24 0:26 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n"


def test_cgroup_plans_for_v1_and_v2():
    mounts = parse_mountinfo(V1)
    assert [m.point for m in mounts][:2] == [
        Path("/sys/fs/cgroup/memory"),
        Path("/sys/fs/cgroup/pids"),
    ]
    own_v1 = "9:pids:/\n4:memory:/svc/abc\n0::/\n"
    plans = plan_cgroups(V1, own_v1)
    assert plans[0].version == 2  # tried first; its probe fails without pids/memory there
    v1 = plans[1]
    assert v1.version == 1
    assert v1.pids_base == Path("/sys/fs/cgroup/pids/github-mcp-ws")
    assert v1.memory_base == Path("/sys/fs/cgroup/memory/svc/abc/github-mcp-ws")
    (v2,) = plan_cgroups(V2, "0::/system.slice/mcp.service\n")
    assert v2.version == 2
    assert v2.pids_base == Path("/sys/fs/cgroup/system.slice/mcp.service/github-mcp-ws")
