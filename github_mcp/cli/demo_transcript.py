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
    outcome: str = "ok"


def outcome(record: CallRecord, payload: dict[str, Any], *, expected: bool) -> str:
    """How a call ended, in words: a refusal the script expects is not an error."""
    if record.ok:
        return "ok"
    if expected and payload.get("error", {}).get("approval_url"):
        return "approval needed"
    return f"{'refused' if expected else 'error'}: {record.error_code}"


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

    async def server_says(self, message: Any) -> None:
        """The server's log notifications (progress such as "cloning …"); its error
        notifications only repeat a call's outcome, which the transcript shows."""
        if message.level in ("debug", "info", "notice"):
            data = message.data
            text = data.get("msg", data) if isinstance(data, dict) else data
            self.say(f"     · {shorten(text, 100)}")

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
        payload: dict[str, Any] = result.structured_content or json.loads(text or "{}")
        wire = len(result.model_dump_json(by_alias=True, exclude_none=True).encode())
        code = payload.get("error", {}).get("code") if result.is_error else None
        expected = bool(expect_error) and code == expect_error
        record = CallRecord(
            self.step, tool, not result.is_error, code, round(ms, 1), len(text.encode()), wire
        )
        record.outcome = outcome(record, payload, expected=expected)
        self.report.calls.append(record)
        self.say(f"   ← {record.outcome} in {ms:.0f} ms · {len(text.encode()):,} bytes")
        problem: str | None = None
        if expect_error:
            if code != expect_error:
                problem = f"expected error {expect_error}, got {record.outcome}: {shorten(payload)}"
            else:
                self.say(f"     {payload['error']['message']}")
                if payload["error"].get("hint"):
                    self.say(f"     hint: {payload['error']['hint']}")
        elif result.is_error:
            problem = f"{tool} failed: {shorten(payload, 400)}"
        else:
            for line in summarize(payload).splitlines():
                self.say(f"     {line}")
            problem = check(payload) if check else None
        if problem:
            self.say(f"   ✗ {problem}")
            raise StepFailed(f"step {self.step} ({tool}): {problem}")
        return payload


def forge_refs(forge: Any, full_name: str) -> dict[str, str]:
    """Branch heads and pull request heads of one repository, read from the forge's git."""
    owner, name = full_name.split("/")
    repo = forge.state.repo(owner, name)
    refs = repo.git.list_refs("refs/heads/") + repo.git.list_refs("refs/pull/")
    return {ref: sha for ref, sha, _kind in refs if not ref.endswith("/merge")}


def forge_changes(forge: Any, full_name: str, before: dict[str, str]) -> list[str]:
    """What the session changed on the forge, from its refs before and after."""
    after = forge_refs(forge, full_name)
    owner, name = full_name.split("/")
    git = forge.state.repo(owner, name).git
    lines = []
    for ref in sorted(after.keys() - before.keys()):
        if ref.startswith("refs/pull/"):
            lines.append(f"+ pull request #{ref.split('/')[2]} opened (head {after[ref][:10]})")
        else:
            lines.append(f"+ branch {ref.removeprefix('refs/heads/')} at {after[ref][:10]}")
    for ref in sorted(r for r in after.keys() & before.keys() if after[r] != before[r]):
        count = git.run("rev-list", "--count", f"{before[ref]}..{after[ref]}").decode().strip()
        lines.append(
            f"~ {ref.removeprefix('refs/heads/')} {before[ref][:10]} → {after[ref][:10]} "
            f"({count} new commit{'s' if count != '1' else ''})"
        )
    lines += [f"- {ref} removed" for ref in sorted(before.keys() - after.keys())]
    return lines or ["(nothing)"]


def print_summary(out: TextIO, report: DemoReport, changes: list[str]) -> None:
    print("\nSummary", file=out)
    print(
        f"  {'step':>4}  {'tool':32} {'result':24} {'ms':>7} {'payload B':>10} {'wire B':>8}",
        file=out,
    )
    for c in report.calls:
        print(
            f"  {c.step:>4}  {c.tool:32} {c.outcome:24} {c.ms:>7.0f} {c.payload_bytes:>10,} "
            f"{c.wire_bytes:>8,}",
            file=out,
        )
    total = sum(c.payload_bytes for c in report.calls)
    refused = sum(1 for c in report.calls if not c.ok)
    print(
        f"  {len(report.calls)} calls ({refused} refused as expected), {total:,} payload "
        f"bytes; wall time {report.wall_s} s",
        file=out,
    )
    print("  What changed on the forge:", file=out)
    for line in changes:
        print(f"    {line}", file=out)
    print("  DEMO PASSED" if report.ok else f"  DEMO FAILED: {report.failure}", file=out)
