"""A suggested tool call in an answer (rerun this, reply there), as an assistant would
write it, so the next step is one copy away."""

from __future__ import annotations

from typing import Any


def call_text(tool: str, **args: Any) -> str:
    """A suggested tool call, as an assistant would write it: name(arg='value', …)."""
    parts = []
    for key, value in args.items():
        if value is None:
            continue
        parts.append(f"{key}={value!r}" if not isinstance(value, bool) else f"{key}={value}")
    return f"{tool}({', '.join(parts)})"
