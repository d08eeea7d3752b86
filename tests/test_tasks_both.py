"""One task lifecycle over both transports, compared field by field: `main.py serve` over
HTTP (fastmcp-tasks on its `memory://` queue) and over stdio (the stdio server's own task
table) against one forge repository. `server/discover` advertises the same capabilities;
a task's creation, its `tasks/get` while working and once completed (the result inlined),
the cancel and update acknowledgments, and the errors for an undeclared extension and an
unknown task have the same shape, and the command's real output in both."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from tests.stdio_client import StdioClient, meta
from tests.test_tasks_http import Server, raw_post
from tests.test_tasks_stdio import stdio_env

TIMES = ("createdAt", "lastUpdatedAt")


class HttpClient:
    """Raw 2026-07-28 requests to the HTTP server (the same frames the stdio client sends)."""

    def __init__(self, url: str) -> None:
        self.url = url

    def call(self, method: str, params: dict[str, Any] | None = None, **asks: Any) -> dict:
        params = {**(params or {}), "_meta": meta(**asks)}
        body = {"jsonrpc": "2.0", "id": 1, "method": method, "params": params}
        name = params.get("name") or params.get("taskId")
        headers = {
            "Content-Type": "application/json",
            "Accept": "application/json, text/event-stream",
            "MCP-Protocol-Version": "2026-07-28",
            "Mcp-Method": method,
            **({"Mcp-Name": name} if isinstance(name, str) else {}),
        }
        return raw_post(self.url, body, headers, timeout=120)

    def task(self, method: str, task_id: str, **params: Any) -> dict:
        return self.call(method, {"taskId": task_id, **params})

    def until_status(self, task_id: str, wanted: set[str]) -> dict:
        import time

        for _ in range(2400):
            got = self.task("tasks/get", task_id)["result"]
            if got["status"] in wanted:
                return got
            time.sleep(0.1)
        raise AssertionError(f"task {task_id} never reached {wanted}")


def _lifecycle(client: Any, repo: str) -> dict[str, Any]:
    """What a client sees of one task's life, and of the errors around it."""
    where = {"full_name": repo, "ref": "feature/a"}
    seen: dict[str, Any] = {"discover": client.call("server/discover", tasks=False)}
    call = {"name": "terminal_command", "arguments": {**where, "command": "echo hi"}}
    created = seen["created"] = client.call("tools/call", call)["result"]
    task_id = created["taskId"]
    seen["completed"] = client.until_status(task_id, {"completed", "failed", "cancelled"})
    seen["cancel_after_done"] = client.task("tasks/cancel", task_id)
    seen["update_not_waiting"] = client.task("tasks/update", task_id, inputResponses={"k": {}})
    seen["still_completed"] = client.task("tasks/get", task_id)["result"]["status"]
    seen["undeclared"] = client.call("tasks/get", {"taskId": "t-1"}, tasks=False)
    seen["unknown"] = client.task("tasks/get", "no-such-task")
    return seen


def _shape(value: Any) -> Any:
    """The value without what differs from run to run (timings, call ids, the text copy
    of the structured content, which holds the timing)."""
    if isinstance(value, dict):
        skip = ("duration_s", "call_id", "text")
        return {k: _shape(v) for k, v in value.items() if k not in skip}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value


@pytest.mark.timeout(600)
def test_the_same_task_lifecycle_over_http_and_stdio(forge, forge_token, tmp_path):
    repo = f"octo-org/both-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(repo, {"README.md": "x\n"}, branches={"feature/a": {"README.md": "x\n"}})
    (tmp_path / "http").mkdir()
    (tmp_path / "stdio").mkdir()
    server = Server(tmp_path / "http", forge.base_url, forge_token)
    try:
        over_http = _lifecycle(HttpClient(server.url), repo)
    finally:
        server.stop()
    env = stdio_env(
        tmp_path / "stdio", forge.base_url, forge_token,
        GITHUB_MCP_APPROVAL_MODE="env", GITHUB_MCP_AUTO_APPROVE="true",
    )  # fmt: skip
    client = StdioClient(env, stderr=tmp_path / "stdio" / "server.log")
    try:
        over_stdio = _lifecycle(client, repo)
    finally:
        assert client.close() == 0

    assert (
        over_stdio["discover"]["result"]["capabilities"]
        == (over_http["discover"]["result"]["capabilities"])
    )
    for step in ("created", "completed"):
        h, s = over_http[step], over_stdio[step]
        assert set(s) == set(h), (step, h, s)
        for field in set(h) - {"taskId", *TIMES, "result"}:
            assert s[field] == h[field], (step, field, h[field], s[field])
        assert s["taskId"] != h["taskId"] and len(s["taskId"]) == len(h["taskId"])
    done_h, done_s = over_http["completed"]["result"], over_stdio["completed"]["result"]
    assert done_s["isError"] is False, done_s
    assert _shape(done_s) == _shape(done_h), (done_h, done_s)
    assert done_s["structuredContent"]["stdout"] == "hi\n"
    for step in ("cancel_after_done", "update_not_waiting", "undeclared", "unknown"):
        h, s = ({k: v for k, v in f[step].items() if k != "id"} for f in (over_http, over_stdio))
        assert s == h, (step, h, s)
    assert over_stdio["still_completed"] == over_http["still_completed"] == "completed"
