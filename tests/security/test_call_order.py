"""Calls from one client take effect in the order they were sent, whatever their tools.

The attack: in `tool` approval mode over stdio, a client revokes its approval and, in the
same breath, writes to the protected default branch. If the write can overtake the
revocation, the default branch moves after the human took the approval back. Evidence is
the forge's branch head, not the server's answer; the reverse order shows the write is not
merely held back forever (an approved write sent before the revocation lands).
"""

from __future__ import annotations

import os
import sys
import uuid

import httpx2 as httpx

from tests.conftest import ROOT
from tests.stdio_session import opening, run, tool_call

ROUNDS = 6


def _head(forge, token: str, full_name: str) -> str:
    response = httpx.get(
        f"{forge.base_url}/repos/{full_name}/branches/main",
        headers={"Authorization": f"Bearer {token}"},
    )
    response.raise_for_status()
    return response.json()["commit"]["sha"]


def _commit(ident: int, full_name: str, note: str) -> dict:
    files = [{"path": "NOTES.md", "content": f"{note}\n"}]
    return tool_call(
        ident,
        "commit_files",
        {"full_name": full_name, "branch": "main", "files": files, "message": note},
    )


def _authorize(ident: int, approved: bool) -> dict:
    return tool_call(ident, "authorize_write_actions", {"approved": approved})


def _serve(forge, token: str, tmp_path, steps):
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_APPROVAL_MODE": "tool",
        "GITHUB_MCP_TOOLSETS": "all",
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    with (tmp_path / "stderr").open("wb") as stderr:
        session = run([sys.executable, "main.py", "serve"], steps, cwd=ROOT, env=env, stderr=stderr)
    assert session.returncode == 0
    return session


def test_a_revocation_sent_before_a_write_always_stops_it(forge, forge_token, tmp_path):
    full_name = f"octo-org/order-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "# order\n"})
    before = _head(forge, forge_token, full_name)
    steps = [*opening()]
    ident = 10
    for round_ in range(ROUNDS):
        steps.append([_authorize(ident, True)])
        # sent together, in this order: the revocation, then the write
        steps.append([_authorize(ident + 1, False), _commit(ident + 2, full_name, f"r{round_}")])
        ident += 3
    session = _serve(forge, forge_token, tmp_path, steps)
    assert _head(forge, forge_token, full_name) == before, "a write overtook its revocation"
    for first in range(10, ident, 3):
        assert session.result(first)["structuredContent"]["approved"] is True
        assert session.result(first + 1)["structuredContent"]["approved"] is False
        refused = session.result(first + 2)
        assert refused["isError"] is True
        assert refused["structuredContent"]["error"]["code"] == "write_not_allowed"


def test_a_write_sent_before_a_revocation_lands_once(forge, forge_token, tmp_path):
    full_name = f"octo-org/order-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(full_name, {"README.md": "# order\n"})
    before = _head(forge, forge_token, full_name)
    steps = [
        *opening(),
        [_authorize(10, True)],
        [_commit(11, full_name, "landed"), _authorize(12, False)],
        [_commit(13, full_name, "refused")],
    ]
    session = _serve(forge, forge_token, tmp_path, steps)
    landed = session.result(11)
    assert landed["isError"] is False
    after = _head(forge, forge_token, full_name)
    assert after != before and after == landed["structuredContent"]["commit_sha"]
    assert session.result(13)["structuredContent"]["error"]["code"] == "write_not_allowed"
    assert _head(forge, forge_token, full_name) == after
