"""The demo's transcript: each tool call through the MCP client printed with its arguments,
outcome, size and a one-line summary, recorded for the report, and checked against what
the script expects (a step that misbehaves raises StepFailed)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TextIO


class StepFailed(Exception):
    """A step did not behave as the script expects."""


@dataclass
class CallRecord:
    step: int
    tool: str
    ok: bool
    error_code: str | None
    ms: float
    payload_bytes: int
    wire_bytes: int


@dataclass
class DemoReport:
    ok: bool = False
    failure: str | None = None
    wall_s: float = 0.0
    tools_list_bytes: int = 0
    tools: int = 0
    calls: list[CallRecord] = field(default_factory=list)


def shorten(value: Any, limit: int = 160) -> str:
    text = json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value
    return text if len(text) <= limit else text[: limit - 1] + "…"


class Session:
    """Calls tools, prints the transcript, records sizes and checks expectations."""

    def __init__(self, client: Any, out: TextIO, report: DemoReport) -> None:
        self.client = client
        self.out = out
        self.report = report
        self.step = 0

    def say(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def heading(self, title: str) -> None:
        self.step += 1
        self.say()
        self.say(f"── {self.step}. {title} " + "─" * max(4, 66 - len(title)))

    def world(self, text: str) -> None:
        self.say(f"   [world] {text}")

    async def call(
        self,
        tool: str,
        args: dict[str, Any],
        summarize: Callable[[dict[str, Any]], str],
        *,
        expect_error: str | None = None,
        check: Callable[[dict[str, Any]], str | None] | None = None,
    ) -> dict[str, Any]:
        shown = {
            k: (shorten(v, 60) if isinstance(v, str) and "\n" in v else v) for k, v in args.items()
        }
        self.say(f"   → {tool} {shorten(shown, 200)}")
        started = time.perf_counter()
        result = await self.client.call_tool_mcp(tool, args)
        ms = (time.perf_counter() - started) * 1000
        text = "".join(getattr(c, "text", "") for c in result.content)
        payload = result.structuredContent or json.loads(text or "{}")
        wire = len(result.model_dump_json(by_alias=True, exclude_none=True).encode())
        code = payload.get("error", {}).get("code") if result.isError else None
        self.report.calls.append(
            CallRecord(
                self.step, tool, not result.isError, code, round(ms, 1), len(text.encode()), wire
            )
        )
        status = f"error {code}" if result.isError else "ok"
        self.say(f"   ← {status} in {ms:.0f} ms · {len(text.encode()):,} bytes")
        problem: str | None = None
        if expect_error:
            if code != expect_error:
                problem = f"expected error {expect_error}, got {status}: {shorten(payload)}"
            else:
                self.say(f"     {payload['error']['message']}")
                if payload["error"].get("hint"):
                    self.say(f"     hint: {payload['error']['hint']}")
        elif result.isError:
            problem = f"{tool} failed: {shorten(payload, 400)}"
        else:
            for line in summarize(payload).splitlines():
                self.say(f"     {line}")
            problem = check(payload) if check else None
        if problem:
            self.say(f"   ✗ {problem}")
            raise StepFailed(f"step {self.step} ({tool}): {problem}")
        return payload
