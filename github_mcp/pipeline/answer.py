"""A tool call's answer as the pipeline makes it, before any transport sees it: the
stdio server writes `wire()` itself; the framework's tools (serving/framework_tools.py)
turn it into the framework's result."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class ToolAnswer:
    """The JSON text the model reads, the same data structured, whether it is an error
    envelope, and `_meta` (a card's data or a replay mark), which the model never reads."""

    text: str
    structured: dict[str, Any]
    is_error: bool = False
    meta: dict[str, Any] | None = None

    @classmethod
    def of(
        cls,
        structured: dict[str, Any],
        *,
        is_error: bool = False,
        meta: dict[str, Any] | None = None,
    ) -> ToolAnswer:
        return cls(compact_json(structured), structured, is_error, meta)

    def wire(self) -> dict[str, Any]:
        """The `tools/call` result as MCP puts it on the wire."""
        result: dict[str, Any] = {
            "content": [{"type": "text", "text": self.text}],
            "structuredContent": self.structured,
            "isError": self.is_error,
        }
        if self.meta:
            result["_meta"] = self.meta
        return result


def compact_json(payload: Any) -> str:
    return json.dumps(payload, separators=(",", ":"), ensure_ascii=False)
