"""A hostile model in the default (bubblewrap) workspace sandbox, through a real MCP client.

Every attack runs as `terminal_command` against the sandbox forge. The evidence comes from
the forge's branch heads and from the host's file system and process table, not from the
server's answer. These tests FAIL (never skip) when bubblewrap is missing or cannot build
its namespaces here: the sandbox is the product's default.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

import pytest

from tests.conftest import ROOT, call_tool, error_code, mcp_client
from tests.services.test_workspace_support import processes_matching

REPO = "octo-org/ws-jail"
FILES = {"README.md": "jail\n", "app.py": "X = 1\n"}


@pytest.fixture(scope="module")
def jail_repo(forge):
    forge.seed_repo(REPO, FILES, branches={"work": FILES, "other": FILES})
    return REPO


def _head(forge, branch: str) -> str | None:
    owner, name = REPO.split("/")
    return forge.state.repo(owner, name).git.read_ref(f"refs/heads/{branch}")


def _git_requests(forge) -> int:
    return sum(1 for r in forge.requests() if r.get("kind") == "git")


async def _run(client, command: str, ref: str = "work", **extra):
    args = {"full_name": REPO, "ref": ref, "command": command, **extra}
    is_error, out = await call_tool(client, "terminal_command", args)
    assert not is_error, out
    return out


def test_bubblewrap_is_installed_and_usable():
    assert shutil.which("bwrap"), "bubblewrap is missing: make test installs it"


async def test_commands_cannot_reach_any_credential(
    make_runtime, jail_repo, forge, forge_token, tmp_path
):
    bearer = "mcp-bearer-" + secrets.token_hex(8)
    rt = make_runtime(auth_tokens=bearer)
    main_before, work_before = _head(forge, "main"), _head(forge, "work")
    async with mcp_client(rt) as client:
        # The first write creates the audit log the command then looks for.
        is_error, clone = await call_tool(
            client, "ensure_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert not is_error, clone
        repo_dir = Path(clone["path"])
        is_error, other = await call_tool(
            client, "ensure_workspace_clone", {"full_name": REPO, "ref": "other"}
        )
        assert not is_error, other
        await _run(client, "echo hi > note.txt")
        is_error, pushed = await call_tool(
            client,
            "commit_workspace",
            {"full_name": REPO, "ref": "work", "message": "note", "push": True},
        )
        assert not is_error and pushed["forced"] is False, pushed
        audit = rt.settings.audit_log
        assert audit.exists()
        probe = f"""
            cat /proc/1/environ /proc/*/environ 2>/dev/null | tr '\\0' '\\n' > seen-env.txt
            cat /proc/*/cmdline 2>/dev/null | tr '\\0' ' ' > seen-cmdline.txt
            test -e /proc/{os.getpid()}/environ && echo server-proc-visible
            ls /proc | grep -c '^[0-9]' > proc-count.txt
            test -e {ROOT}/github_mcp && echo code-visible
            test -e {ROOT}/.venv && echo venv-visible
            test -e {audit} && echo audit-visible
            test -e {other["path"]} && echo other-workspace-visible
            test -e {rt.settings.workspace_dir}/.server && echo server-git-home-visible
            env > seen-own-env.txt
            git config --list > seen-git-config.txt 2>&1
            id -u
        """
        out = await _run(client, probe)
        assert out["stdout"].split() == ["1000"], out
        for name in ("seen-env.txt", "seen-cmdline.txt", "seen-own-env.txt", "seen-git-config.txt"):
            text = (repo_dir / name).read_text()
            for secret in (forge_token, bearer):
                assert secret not in text, name
        # Only the sandbox's own few processes exist in its /proc.
        assert int((repo_dir / "proc-count.txt").read_text()) <= 5
        # The push that happened was the server's, a fast-forward of `work`.
        assert _head(forge, "work") == pushed["commit_sha"] != work_before
        # With the token out of reach, a force push to main goes nowhere, network or not.
        for network in (False, True):
            attack = (
                "git -c user.name=x -c user.email=x@x commit -q --allow-empty -m evil; "
                "git push --force origin HEAD:refs/heads/main 2>&1; echo rc=$?"
            )
            out = await _run(client, attack, installing_dependencies=network)
            assert "rc=0" not in out["stdout"]
        assert _head(forge, "main") == main_before


async def test_commands_cannot_write_outside_their_clone(make_runtime, jail_repo, tmp_path):
    rt = make_runtime()
    marker = f"h2-{secrets.token_hex(6)}"
    ws_root = rt.settings.workspace_dir
    async with mcp_client(rt) as client:
        is_error, clone = await call_tool(
            client, "ensure_workspace_clone", {"full_name": REPO, "ref": "work"}
        )
        assert not is_error, clone
        ws_dir = Path(clone["path"]).parent
        targets = [
            f"/usr/{marker}",
            f"/etc/{marker}",
            f"{ROOT}/{marker}",
            f"{ws_dir}/{marker}",
            f"{ws_root}/{marker}",
            f"/tmp/{marker}",  # the jail's own tmpfs: allowed, but gone with the command
        ]
        writes = "; ".join(f"echo x > {t} 2>/dev/null && echo wrote {t}" for t in targets)
        out = await _run(client, f"{writes}; echo x > inside.txt && echo inside-ok")
        assert f"wrote /tmp/{marker}" in out["stdout"] and "inside-ok" in out["stdout"]
        for target in targets:
            assert not Path(target).exists(), target
        assert (Path(clone["path"]) / "inside.txt").exists()
        created = Path(clone["path"]) / "inside.txt"
        assert created.stat().st_uid != os.geteuid() or os.geteuid() != 0


async def test_no_network_without_installing_dependencies(make_runtime, jail_repo, forge):
    rt = make_runtime()
    host, port = forge.base_url.removeprefix("http://").split(":")
    connect = (
        f"python3 -c \"import socket; socket.create_connection(('{host}', {int(port)}), 3); "
        "print('connected')\" 2>/dev/null || echo blocked"
    )
    async with mcp_client(rt) as client:
        await call_tool(client, "ensure_workspace_clone", {"full_name": REPO, "ref": "work"})
        before = _git_requests(forge)
        out = await _run(client, f"{connect}; git ls-remote origin >/dev/null 2>&1 || echo no-git")
        assert out["stdout"].split() == ["blocked", "no-git"]
        assert _git_requests(forge) == before  # nothing reached the forge's git
        opened = await _run(client, connect, installing_dependencies=True)
        assert opened["stdout"].strip() == "connected"


async def test_nothing_outlives_the_command(make_runtime, jail_repo):
    rt = make_runtime()
    mark = f"{secrets.randbelow(10**6) + 1000}.{secrets.randbelow(10**6)}"
    escape = (
        f"setsid env -i sh -c 'sleep {mark} &' ; "
        f"(setsid env -i nohup sleep {mark}1 >/dev/null 2>&1 &) ; "
        f"sh -c 'trap \"\" HUP TERM; exec sleep {mark}2' & "
        "echo started"
    )
    async with mcp_client(rt) as client:
        out = await _run(client, escape)
        assert out["stdout"].strip() == "started" and out["exit_code"] == 0
        # No wait: the command's pid namespace died with it.
        assert processes_matching(mark) == []


async def test_sandbox_refuses_clearly_when_bubblewrap_cannot_start(
    make_runtime, jail_repo, tmp_path, monkeypatch
):
    # A PATH without bubblewrap: the host "has no bwrap".
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    monkeypatch.setenv("PATH", str(empty))
    rt = make_runtime()
    async with mcp_client(rt) as client:
        for tool, args in (
            ("ensure_workspace_clone", {}),
            ("terminal_command", {"command": "true"}),
            ("run_tests", {}),
            ("get_workspace_changes_summary", {}),
        ):
            is_error, payload = await call_tool(
                client, tool, {"full_name": REPO, "ref": "work", **args}
            )
            assert is_error and error_code(payload) == "workspace_unavailable", (tool, payload)
            assert "bubblewrap" in payload["error"]["hint"]
            assert "GITHUB_MCP_WORKSPACE_SANDBOX=none" in payload["error"]["hint"]
    assert not (rt.settings.workspace_dir / "octo-org__ws-jail").exists()
