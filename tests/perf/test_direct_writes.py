"""Writes over stdio answered by the pipeline directly (serving/direct_calls.py) when no
approval can ask a human through the session (approval modes `env`, `tool`, `elicit`):
the gate still decides each one, on the approvals the process holds, and the answers are
the server's. In `auto` mode writes stay with the server (test_direct_calls.py). The
evidence is the forge's state (branches, heads), the audit log and the server's own log
lines; answers are compared with a run where the server answers everything."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.perf.test_direct_calls import (
    events,
    opening_then,
    seeded,
    serve,
    warmed,
    without_call_ids,
)
from tests.stdio_session import request, tool_call


def head(forge: Any, full_name: str, branch: str) -> str | None:
    repo = forge.state.repo(*full_name.split("/"))
    for ref, sha, _ in repo.git.list_refs():
        if ref == f"refs/heads/{branch}":
            return str(sha)
    return None


def writes(full_name: str) -> list[list[dict[str, Any]]]:
    """One write a step: each waits for the answer before it, as an agent does."""
    files = [{"path": "src/app.py", "content": "print('direct')\n"}]
    return [
        [tool_call(5, "create_branch", {"full_name": full_name, "branch": "direct-feature"})],
        [tool_call(6, "commit_files", {"full_name": full_name, "branch": "main", "files": files,
                                       "message": "to the default branch"})],
        [tool_call(7, "commit_files", {"full_name": full_name, "branch": "direct-feature",
                                       "files": files, "message": "to a feature branch"})],
    ]  # fmt: skip


def normalized(answer: dict[str, Any], full_name: str) -> dict[str, Any]:
    """Two runs write to two repositories: their names and commit ids differ, nothing else."""
    text = json.dumps(without_call_ids(answer)).replace(full_name, "<repo>")
    return json.loads(re.sub(r"\b[0-9a-f]{40}\b", "<sha>", text))


def audited(home: Path) -> list[dict[str, Any]]:
    path = home / "audit.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_env_mode_writes_are_gated_and_answered_directly(forge, forge_token, tmp_path):
    env = warmed(tmp_path, forge, forge_token, GITHUB_MCP_APPROVAL_MODE="env")
    direct_repo, server_repo = seeded(forge), seeded(forge)
    main_before = head(forge, direct_repo, "main")
    log = tmp_path / "serve.log"
    steps = [*opening_then([]), [request(4, "ping")], *writes(direct_repo)]
    session = serve(env, steps, log)
    server_steps = [*opening_then([]), [request(4, "ping")], *writes(server_repo)]
    by_server = serve({**env, "GITHUB_MCP_FAST_START": "0"}, server_steps, tmp_path / "s.log")
    assert [e["tool"] for e in events(log, "direct_call")] == [
        "create_branch", "commit_files", "commit_files",
    ]  # fmt: skip
    assert events(tmp_path / "s.log", "direct_call") == []
    for ident in (5, 6, 7):
        assert normalized(session.answer(ident), direct_repo) == normalized(
            by_server.answer(ident), server_repo
        )
    refused = session.result(6)["structuredContent"]["error"]
    assert refused["code"] == "write_not_allowed" and refused["hint"]
    # the forge: the default branch never moved; the feature branch has the commit
    assert head(forge, direct_repo, "main") == main_before
    feature = head(forge, direct_repo, "direct-feature")
    assert feature and feature != main_before
    assert session.result(7)["structuredContent"]["commit_sha"] == feature
    written = [a for a in audited(tmp_path) if a.get("repo") == direct_repo]
    assert [a["tool"] for a in written] == ["create_branch", "commit_files"]


def test_tool_mode_approval_from_the_server_covers_direct_writes(forge, forge_token, tmp_path):
    """`authorize_write_actions` is the server's (it needs the session); the approval it
    records is the process's, so the gate of a direct write sees it."""
    env = warmed(tmp_path, forge, forge_token, GITHUB_MCP_APPROVAL_MODE="tool")
    full_name = seeded(forge)
    files = [{"path": "README.md", "content": "# approved\n"}]
    commit = {"full_name": full_name, "branch": "main", "files": files, "message": "approved"}
    steps = [
        *opening_then([]),
        [request(4, "ping")],
        [tool_call(5, "commit_files", commit)],  # not approved yet: refused
        [tool_call(6, "authorize_write_actions", {"approved": True})],
        [tool_call(7, "commit_files", commit)],
        [tool_call(8, "authorize_write_actions", {"approved": False})],
        [tool_call(9, "commit_files", {**commit, "message": "revoked"})],
    ]
    log = tmp_path / "serve.log"
    before = head(forge, full_name, "main")
    session = serve(env, steps, log)
    assert [e["tool"] for e in events(log, "direct_call")] == ["commit_files"] * 3
    assert session.result(5)["structuredContent"]["error"]["code"] == "write_not_allowed"
    assert session.result(9)["structuredContent"]["error"]["code"] == "write_not_allowed"
    approved = session.result(7)["structuredContent"]
    after = head(forge, full_name, "main")
    assert after != before and approved["commit_sha"] == after
    repo = forge.state.repo(*full_name.split("/"))
    assert repo.git.read_blob(repo.git.entry_at(after, "README.md").sha) == b"# approved\n"


HOSTILE_MAIN = ("refs/heads/main", "./main", "%2e/main", "ma\u200bin", "main/", "heads/../main")


def test_hostile_spellings_of_the_default_branch_never_reach_it_directly(
    forge, forge_token, tmp_path
):
    """A model's other spellings of `main`, as a write's branch over stdio: each refused
    (by the direct path's gate, or by the schema before it), exactly as the server refuses
    it; the forge's refs never move and it is sent no write at all."""
    from tests.security.test_ref_names import refs_of, writes_to

    env = warmed(tmp_path, forge, forge_token, GITHUB_MCP_APPROVAL_MODE="env")
    direct_repo, server_repo = seeded(forge), seeded(forge)
    files = [{"path": "src/app.py", "content": "print('owned')\n"}]

    def attacks(full_name: str) -> list[list[dict[str, Any]]]:
        calls = []
        for i, spelling in enumerate(HOSTILE_MAIN):
            args = {"full_name": full_name, "branch": spelling}
            calls.append(
                [tool_call(10 + 2 * i, "commit_files", {**args, "files": files, "message": "x"})]
            )
            calls.append([tool_call(11 + 2 * i, "delete_remote_branch", args)])
        return [*opening_then([]), [request(4, "ping")], *calls]  # fmt: skip

    before = refs_of(forge, direct_repo)
    forge.clear_requests()
    log = tmp_path / "serve.log"
    session = serve(env, attacks(direct_repo), log)
    assert writes_to(forge, direct_repo) == []
    assert refs_of(forge, direct_repo) == before
    by_server = serve({**env, "GITHUB_MCP_FAST_START": "0"}, attacks(server_repo), tmp_path / "s")
    idents = range(10, 10 + 2 * len(HOSTILE_MAIN))
    for ident in idents:
        answer = session.result(ident)
        assert answer["isError"] is True, answer
        code = answer["structuredContent"]["error"]["code"]
        assert code in ("write_not_allowed", "invalid_input"), answer
        assert normalized(session.answer(ident), direct_repo) == normalized(
            by_server.answer(ident), server_repo
        )
    # refs/heads/main passes the schema, so the direct path takes it and its gate
    # refuses it; the other spellings fail the schema and are the server's refusals
    assert [e["tool"] for e in events(log, "direct_call")] == [
        "commit_files", "delete_remote_branch",
    ]  # fmt: skip
    for ident in (10, 11):
        assert session.result(ident)["structuredContent"]["error"]["code"] == "write_not_allowed"
