"""The stdio server's task table (serving/stdio_tasks.py) with real asyncio runs: at most
`concurrency` run at once, a question waits for every answer before the call runs again
with them, a cancel wins over a run that ends later, and a finished task stays finished."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from github_mcp.serving.request_meta import RpcError
from github_mcp.serving.stdio_tasks import TaskTable


class Runs:
    """Legs that wait for the test to let each one finish with a given result."""

    def __init__(self) -> None:
        self.started: list[dict[str, Any]] = []  # the answers each leg ran with
        self.release: list[asyncio.Future[dict[str, Any]]] = []

    async def leg(self, answers: dict[str, Any], progress: Any) -> dict[str, Any]:
        self.started.append(answers)
        done: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self.release.append(done)
        progress("halfway")
        return await done


async def _settle() -> None:
    for _ in range(20):
        await asyncio.sleep(0)


def _get(table: TaskTable, task_id: str) -> dict[str, Any]:
    return table.answer("tasks/get", {"taskId": task_id})


async def test_at_most_concurrency_tasks_run_at_once():
    runs, table = Runs(), TaskTable(1)
    first = table.create(runs.leg)["taskId"]
    second = table.create(runs.leg)["taskId"]
    await _settle()
    assert len(runs.started) == 1  # the second waits for the slot
    assert _get(table, second)["status"] == "working"
    assert _get(table, first)["statusMessage"] == "halfway"
    runs.release[0].set_result({"content": [], "isError": False})
    await _settle()
    assert len(runs.started) == 2
    done = _get(table, first)
    assert done["status"] == "completed" and "statusMessage" not in done
    assert done["result"] == {"content": [], "isError": False, "resultType": "complete"}


async def test_questions_are_answered_in_full_before_the_call_runs_again():
    runs, table = Runs(), TaskTable(10)
    task_id = table.create(runs.leg)["taskId"]
    await _settle()
    asked = {"a": {"method": "elicitation/create"}, "b": {"method": "elicitation/create"}}
    runs.release[0].set_result({"resultType": "input_required", "inputRequests": asked})
    await _settle()
    assert _get(table, task_id)["inputRequests"] == asked
    table.answer("tasks/update", {"taskId": task_id, "inputResponses": {"zz": {}}})
    table.answer("tasks/update", {"taskId": task_id, "inputResponses": {"a": {"action": "accept"}}})
    await _settle()
    waiting = _get(table, task_id)
    assert waiting["status"] == "input_required" and list(waiting["inputRequests"]) == ["b"]
    assert len(runs.started) == 1  # unknown keys and a partial answer run nothing
    table.answer(
        "tasks/update", {"taskId": task_id, "inputResponses": {"b": {"action": "decline"}}}
    )
    await _settle()
    assert runs.started[1] == {"a": {"action": "accept"}, "b": {"action": "decline"}}
    assert _get(table, task_id)["status"] == "working"


async def test_cancel_wins_and_a_finished_task_stays_finished():
    runs, table = Runs(), TaskTable(10)
    running = table.create(runs.leg)["taskId"]
    finished = table.create(runs.leg)["taskId"]
    await _settle()
    runs.release[1].set_result({"content": [], "isError": True})
    await _settle()
    assert table.answer("tasks/cancel", {"taskId": running}) == {}
    assert table.answer("tasks/cancel", {"taskId": finished}) == {}
    await _settle()
    assert runs.release[0].cancelled()  # the run itself was cancelled
    assert _get(table, running)["status"] == "cancelled"
    assert _get(table, finished)["status"] == "completed"
    with pytest.raises(RpcError) as unknown:
        _get(table, "nope")
    assert (unknown.value.code, unknown.value.message) == (-32602, "Task nope not found")
    with pytest.raises(RpcError):
        table.answer("tasks/update", {"taskId": running, "inputResponses": []})
