"""`github-mcp-controller call TOOL`: how a result is printed (JSON, or a readable summary
with --pretty), the progress bar on a terminal, and the exit code.

Exit codes (docs/DEPLOY.md, "One tool from the command line"):
  0 the tool succeeded
  1 the tool failed (not found, GitHub error, bad tool arguments, …)
  2 the command itself was misused (bad --args or --arg)
  3 refused by policy (a repository outside the allow-list, a write the policy forbids)
  4 approval needed: a human must approve this write first (the hint says how)
"""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING, Any, TextIO

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_REFUSED, EXIT_APPROVAL = 0, 1, 2, 3, 4
REFUSED_CODES = {"write_not_allowed", "repo_not_allowed", "forbidden", "permission_denied"}
PRETTY_LINES = 60
BAR_WIDTH = 24


def outcome(is_error: bool, payload: Any) -> str:
    """ "ok", "approval_needed", "refused" or "failed"."""
    if not is_error:
        return "ok"
    error = payload.get("error", {}) if isinstance(payload, dict) else {}
    code = error.get("code")
    if code == "write_not_allowed" and (
        error.get("approval_url") or "needs approval" in str(error.get("message", ""))
    ):
        return "approval_needed"
    return "refused" if code in REFUSED_CODES else "failed"


def exit_code(kind: str) -> int:
    return {
        "ok": EXIT_OK,
        "approval_needed": EXIT_APPROVAL,
        "refused": EXIT_REFUSED,
    }.get(kind, EXIT_FAILED)


def pretty(tool: str, is_error: bool, payload: Any) -> str:
    """A readable summary: the outcome, then the fields, lists shortened."""
    kind = outcome(is_error, payload)
    if kind != "ok":
        error = payload.get("error", {}) if isinstance(payload, dict) else {}
        words = kind.replace("_", " ")
        lines = [f"✗ {tool}: {words}: {error.get('message', payload)}"]
        for key in ("hint", "approval_url", "reason"):
            if error.get(key):
                lines.append(f"  {key.replace('_', ' ')}: {error[key]}")
        lines.append(
            f"  code {error.get('code')}" + (", retryable" if error.get("retryable") else "")
        )
        return "\n".join(lines)
    lines = [f"✓ {tool}", *_render(payload, "  ")]
    if len(lines) > PRETTY_LINES:
        hidden = len(lines) - PRETTY_LINES
        lines = [*lines[:PRETTY_LINES], f"  … {hidden} more lines (without --pretty: all, as JSON)"]
    return "\n".join(lines)


def _scalar(value: Any, limit: int = 160) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    text = text.replace("\n", "⏎ ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _render(value: Any, indent: str) -> list[str]:
    if not isinstance(value, dict):
        return [indent + _scalar(value)]
    lines: list[str] = []
    for key, item in value.items():
        if isinstance(item, dict) and item:
            lines += [f"{indent}{key}:", *_render(item, indent + "  ")]
        elif isinstance(item, list) and item and isinstance(item[0], dict):
            lines.append(f"{indent}{key} ({len(item)}):")
            lines += [f"{indent}  - {_one_line(entry)}" for entry in item[:10]]
            if len(item) > 10:
                lines.append(f"{indent}  … {len(item) - 10} more")
        elif isinstance(item, list):
            shown = ", ".join(_scalar(v, 60) for v in item[:10])
            more = f", … {len(item) - 10} more" if len(item) > 10 else ""
            lines.append(f"{indent}{key}: {shown}{more}" if item else f"{indent}{key}: (none)")
        else:
            lines.append(f"{indent}{key}: {_scalar(item)}")
    return lines


def _one_line(entry: dict[str, Any]) -> str:
    fields = [(k, v) for k, v in entry.items() if not isinstance(v, dict | list)][:5]
    return _scalar(", ".join(f"{k}={_scalar(v, 60)}" for k, v in fields), 150)


class ProgressBar:
    """Draws the tool's progress notifications on one terminal line (stderr); nothing
    when stderr is not a terminal, so scripts and pipes get clean output."""

    def __init__(self, stream: TextIO = sys.stderr) -> None:
        self.stream = stream
        self.enabled = stream.isatty()
        self.started = time.monotonic()
        self.drawn = False

    def __call__(self, progress: float, total: float | None, message: str | None) -> None:
        if not self.enabled:
            return
        elapsed = time.monotonic() - self.started
        if total:
            ratio = max(0.0, min(1.0, progress / total))
            filled = round(ratio * BAR_WIDTH)
            bar = f"[{'#' * filled}{'-' * (BAR_WIDTH - filled)}] {ratio:4.0%}"
        else:
            bar = f"[{'.' * (int(elapsed) % BAR_WIDTH + 1):<{BAR_WIDTH}}]"
        note = _scalar(message or "", 60)
        self.stream.write(f"\r\x1b[2K{bar} {elapsed:5.1f}s {note}")
        self.stream.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[2K")
            self.stream.flush()


async def call_through_seam(
    rt: Runtime, tool: str, arguments: dict[str, Any], progress: ProgressBar | None = None
) -> tuple[bool, Any]:
    """One call through the seam every transport uses, as a client with no capabilities
    would make it over stdio: no elicitation (a write that needs approval is refused
    unless approvals are automatic) and progress drawn by `progress`."""
    from github_mcp.apps.approval_tool import install_cards
    from github_mcp.catalog.tool_catalog import view_of
    from github_mcp.pipeline import seam
    from github_mcp.pipeline.answer import ToolAnswer
    from github_mcp.pipeline.extension_tools import import_extension_tools
    from github_mcp.pipeline.peer import CallOrder
    from github_mcp.serving import request_meta
    from github_mcp.serving.stdio_peer import StdioPeer

    import_extension_tools()
    rt.bound_specs.refresh()
    install_cards(rt)

    def notify(method: str, params: dict[str, Any]) -> None:
        if method == "notifications/progress" and progress is not None:
            progress(params["progress"], params.get("total"), params.get("message"))

    async def ask(method: str, params: dict[str, Any]) -> Any:
        raise RuntimeError(f"{method}: the command line cannot answer")  # never asked

    peer = StdioPeer(
        view_of(rt.settings, {}),
        meta={"progressToken": "cli"},
        answers=None,
        asks=request_meta.parse({"progressToken": "cli"}),
        capabilities={},  # no elicitation: asked nothing, so `ask` is never called
        session_level=request_meta.SERVER_FLOOR,
        enabled=set(),
        order=CallOrder(),
        notify=notify,
        ask=ask,
    )
    answer = await seam.call_tool(rt, peer, tool, arguments)
    if not isinstance(answer, ToolAnswer):  # input_required goes to 2026-07-28 clients only
        raise RuntimeError("the seam asked the command line for input")
    return answer.is_error, answer.structured
