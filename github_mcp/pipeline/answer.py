"""A tool call's answer as the pipeline makes it, before any MCP library sees it.

The pipeline stays free of the MCP framework so that a read can be served while the
framework is still loading (serving/first_calls.py): the binding turns a `ToolAnswer`
into the framework's result, and the early path writes `wire()` itself.
"""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeGuard

if TYPE_CHECKING:
    from mcp.types import InputRequiredResult


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


def is_input_request(result: object) -> TypeGuard[InputRequiredResult]:
    """Whether a handler returned the protocol's request for client input. Only a write
    that asks a human builds one, and building one loads the MCP types: when they are not
    loaded, nothing can be one (and a read does not load them just to find out)."""
    types = sys.modules.get("mcp.types")
    return types is not None and isinstance(result, types.InputRequiredResult)
