"""MCP tasks over stdio (the 2026-07-28 `io.modelcontextprotocol/tasks` extension), with a
real `main.py serve` process on pipes, the sandbox forge and real git:

- a long call (run_tests) from a request that declared the extension answers with a task
  while the run is still going (the test holds the run until it has the task), and
  `tasks/get` then inlines the run's real result;
- `tasks/cancel` ends a running command: the process is gone from the process table, the
  task says `cancelled`, and the clone still takes the next command;
- a gated write as a task stops at `input_required` with the approval question, nothing
  lands; `tasks/update` with the human's answer runs it, and the push lands once (the
  forge's branch head has the old head as its only parent); a denial lands nothing;
- the task methods need the extension declared (-32021), an unknown task is the spec's
  "not found", and a handshake-era connection has no task methods at all.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.approvals.conftest import branch_head, commit_parents
from tests.conftest import traversable
from tests.stdio_client import HANG_S, StdioClient
from tests.stdio_session import initialize, request, run
from tests.test_tasks_http import HOLD

ROOT = Path(__file__).resolve().parents[1]


def stdio_env(tmp: Path, api_url: str, token: str, **extra: str) -> dict[str, str]:
    (tmp / "tmp").mkdir(exist_ok=True)
    return {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp),
        "TMPDIR": str(tmp / "tmp"),
        "GITHUB_API_URL": api_url,
        "GITHUB_TOKEN": token,
        "GITHUB_MCP_WORKSPACE_DIR": str(traversable(tmp) / "ws"),
        # pytest lives in the server's own interpreter, which the sandbox does not show
        "GITHUB_MCP_WORKSPACE_SANDBOX": "none",
        "GITHUB_MCP_AUDIT_LOG": str(tmp / "audit.jsonl"),
        **extra,
    }


@pytest.fixture
def repo(forge):
    name = f"octo-org/stdio-tasks-{uuid.uuid4().hex[:8]}"
    files = {"README.md": "tasks\n", "tests/test_held.py": HOLD}
    forge.seed_repo(name, files, branches={"feature/held": files})
    return name


@pytest.fixture(scope="module")
def client_home(tmp_path_factory) -> Path:
    """The shared client's home: its workspace (clones) and its log."""
    return tmp_path_factory.mktemp("stdio-tasks")


@pytest.fixture(scope="module")
def client(forge, forge_token, client_home):
    """One server for the module's tests that use it: each works in a repository of its
    own, on tasks of its own (request ids keep counting across them)."""
    env = stdio_env(
        client_home, forge.base_url, forge_token,
        GITHUB_MCP_APPROVAL_MODE="env", GITHUB_MCP_AUTO_APPROVE="true",
    )  # fmt: skip
    running = StdioClient(env, stderr=client_home / "server.log")
    yield running
    running.close()


def _clone_files(tmp: Path, filename: str) -> list[Path]:
    return [p for p in (traversable(tmp) / "ws").rglob(filename) if "/.git/" not in str(p)]


def _until(condition, what: str) -> None:
    """Wait for a condition; the bound only ends a hang."""
    for _ in range(int(HANG_S / 0.05)):
        if condition():
            return
        time.sleep(0.05)
    raise AssertionError(f"timed out waiting for {what}")


def _processes_with(marker: str) -> list[str]:
    found = subprocess.run(["pgrep", "-af", marker], capture_output=True, text=True)
    return [line for line in found.stdout.splitlines() if "pgrep" not in line]


def _created(answer: dict) -> str:
    result = answer["result"]
    assert result["resultType"] == "task" and result["status"] == "working", answer
    return result["taskId"]


@pytest.mark.timeout(300)
def test_run_tests_answers_with_a_task_and_get_inlines_the_result(client, repo, client_home):
    where = {"full_name": repo, "ref": "feature/held"}
    cloned = client.call("tools/call", {"name": "ensure_workspace_clone", "arguments": where})
    assert cloned["result"]["resultType"] == "task"  # a clone is long work too
    assert (
        client.until_status(cloned["result"]["taskId"], {"completed"})["result"]["isError"] is False
    )
    args = {
        **where,
        "test_command": f"{sys.executable} -m pytest -q -p no:cacheprovider",
        "use_venv": False,
    }
    task_id = _created(client.call("tools/call", {"name": "run_tests", "arguments": args}))
    # the answer came while the run waits for the release file this test has not written
    assert not _clone_files(client_home, "release")
    _until(lambda: _clone_files(client_home, "started"), "the run to start")
    working = client.task("tasks/get", task_id)["result"]
    assert working["status"] == "working" and "result" not in working, working
    clone = _clone_files(client_home, "started")[0].parent
    (clone / "release").write_text("go")
    done = client.until_status(task_id, {"completed", "failed", "cancelled"})
    assert done["status"] == "completed", done
    run_result = done["result"]["structuredContent"]
    assert run_result["passed"] == 1 and run_result["failed"] == 1, run_result
    assert run_result["failing"][0]["name"].endswith("test_fails"), run_result
    assert client.task("tasks/get", task_id)["result"]["result"] == done["result"]


@pytest.mark.timeout(300)
def test_cancel_ends_the_command_and_leaves_the_clone_usable(client, repo):
    marker = uuid.uuid4().hex
    command = f"python3 -c 'import time; time.sleep(30)' {marker}"
    where = {"full_name": repo, "ref": "feature/held"}
    args = {**where, "command": command}
    task_id = _created(client.call("tools/call", {"name": "terminal_command", "arguments": args}))
    _until(lambda: _processes_with(marker), "the command to start")
    cancelled = client.task("tasks/cancel", task_id)
    assert cancelled["result"]["resultType"] == "complete", cancelled
    assert client.task("tasks/get", task_id)["result"]["status"] == "cancelled"
    _until(lambda: not _processes_with(marker), "the command to end")
    # a cancelled task stays cancelled, and the clone takes the next command
    assert client.task("tasks/cancel", task_id)["result"]["resultType"] == "complete"
    status = {**where, "command": "git status --porcelain"}
    after = client.call(
        "tools/call", {"name": "terminal_command", "arguments": status}, tasks=False
    )
    outcome = after["result"]["structuredContent"]
    assert outcome["exit_code"] == 0 and outcome["stdout"] == "", outcome
    assert client.task("tasks/get", task_id)["result"]["status"] == "cancelled"


def test_task_methods_need_the_extension_and_a_known_task(client):
    refused = client.call("tasks/get", {"taskId": "t-1"}, tasks=False)["error"]
    assert refused["code"] == -32021, refused
    assert refused["data"] == {
        "requiredCapabilities": {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    }
    for method in ("tasks/get", "tasks/cancel"):
        unknown = client.task(method, "no-such-task")["error"]
        assert unknown == {"code": -32602, "message": "Task no-such-task not found"}, unknown
    update = client.task("tasks/update", "no-such-task", inputResponses={})["error"]
    assert update["code"] == -32602, update
    # a short tool answers in its request, even for a client that declared tasks
    me = client.call("tools/call", {"name": "get_me", "arguments": {}})["result"]
    assert me["resultType"] == "complete" and me["structuredContent"]["login"] == "octocat"


def test_a_handshake_connection_has_no_task_methods(forge, forge_token, tmp_path):
    env = stdio_env(tmp_path, forge.base_url, forge_token)
    session = run(
        [sys.executable, "main.py", "serve"],
        [[initialize()], [request(2, "tasks/get", {"taskId": "t"})]],
        cwd=ROOT,
        env=env,
    )
    assert session.answer(2)["error"]["code"] == -32601


def test_with_tasks_turned_off_a_long_call_answers_in_its_request(forge, forge_token, tmp_path):
    env = stdio_env(tmp_path, forge.base_url, forge_token, GITHUB_MCP_TASKS="false")
    client = StdioClient(env)
    try:
        extensions = client.call("server/discover")["result"]["capabilities"]["extensions"]
        assert extensions == {"io.modelcontextprotocol/ui": {}}, extensions
        assert client.task("tasks/get", "t")["error"]["code"] == -32601
        args = {"full_name": "octo-org/none", "command": "echo hi"}
        answered = client.call("tools/call", {"name": "terminal_command", "arguments": args})
        assert answered["result"]["resultType"] == "complete", answered
        assert answered["result"]["isError"] is True  # the repository does not exist
    finally:
        assert client.close() == 0


def _gated_commit_task(forge, env: dict[str, str], repo: str, tmp: Path, choice: str) -> tuple:
    """commit_workspace pushing to main (gated) as a task; the human's `choice` given with
    tasks/update. (what the task asked, the branch head while it waited, the final task)"""
    client = StdioClient(env, stderr=tmp / "server.log")
    try:
        where = {"full_name": repo, "ref": "main"}
        cloned = client.call("tools/call", {"name": "ensure_workspace_clone", "arguments": where})
        client.until_status(cloned["result"]["taskId"], {"completed"})
        clone = next(p.parent for p in _clone_files(tmp, "README.md"))
        (clone / "from-task.txt").write_text("written in the workspace\n")
        args = {**where, "message": "From a task", "push": True}
        call = {"name": "commit_workspace", "arguments": args}
        task_id = _created(client.call("tools/call", call))
        asked = client.until_status(task_id, {"input_required", "completed", "failed"})
        waiting_head = branch_head(forge, repo)
        assert client.task("tasks/get", task_id)["result"]["status"] == "input_required"
        ((key, _),) = asked["inputRequests"].items()
        answer = {"action": "accept", "content": {"value": choice}}
        updated = client.task("tasks/update", task_id, inputResponses={key: answer})
        assert updated["result"]["resultType"] == "complete", updated
        done = client.until_status(task_id, {"completed", "failed", "cancelled"})
        # the same answer again changes nothing: the task is not waiting any more
        client.task("tasks/update", task_id, inputResponses={key: answer})
        again = client.task("tasks/get", task_id)["result"]
        assert again["status"] == done["status"] and again.get("result") == done.get("result")
        return asked, waiting_head, done
    finally:
        assert client.close() == 0


@pytest.mark.timeout(300)
@pytest.mark.parametrize("choice", ["approve", "deny"])
def test_a_gated_write_as_a_task_waits_for_the_human(forge, forge_token, tmp_path, choice):
    repo = f"octo-org/stdio-gated-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "# gated\n"})
    before = branch_head(forge, repo)
    env = stdio_env(tmp_path, forge.base_url, forge_token, GITHUB_MCP_APPROVAL_MODE="auto")
    asked, waiting_head, done = _gated_commit_task(forge, env, repo, tmp_path, choice)
    assert asked["status"] == "input_required", asked
    ((question),) = asked["inputRequests"].values()
    assert question["method"] == "elicitation/create"
    assert question["params"]["mode"] == "form", question  # stdio serves no approval page
    choices = question["params"]["requestedSchema"]["properties"]["value"]["oneOf"]
    assert {"approve", "deny"} <= {c["const"] for c in choices}
    assert waiting_head == before  # nothing landed while the task waited
    assert done["status"] == "completed", done
    head = branch_head(forge, repo)
    if choice == "approve":
        assert done["result"]["isError"] is False, done
        assert done["result"]["structuredContent"]["pushed"] is True, done
        assert head != before and commit_parents(forge, repo, head) == [before]  # exactly once
    else:
        assert done["result"]["isError"] is True, done
        assert "did not approve" in done["result"]["content"][0]["text"]
        assert head == before
