"""The toolsets as data: each with its id, description and default flag (declared in
toolsets.toml beside this module, which the settings also read for their vocabulary) and
the tools it holds (each tool names its toolset in `@tool(toolset=…)`). docs/TOOLS.md is
rendered from these."""

from __future__ import annotations

import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

TOOLSETS_FILE = Path(__file__).with_name("toolsets.toml")


@dataclass(frozen=True)
class ToolsetInfo:
    id: str
    description: str
    default: bool  # listed when GITHUB_MCP_TOOLSETS is `default`
    tools: tuple[str, ...]  # by name


def declared() -> list[dict[str, object]]:
    """The declarations, in listing order (toolsets.toml's [[toolset]] tables)."""
    data = tomllib.loads(TOOLSETS_FILE.read_text(encoding="utf-8"))
    return list(data["toolset"])


def toolsets(tools: Iterable[tuple[str, str]]) -> list[ToolsetInfo]:
    """Every declared toolset with the tools it holds, from (tool, toolset) pairs."""
    held: dict[str, list[str]] = {}
    for name, toolset in tools:
        held.setdefault(toolset, []).append(name)
    return [
        ToolsetInfo(
            id=str(entry["id"]),
            description=str(entry["description"]),
            default=bool(entry["default"]),
            tools=tuple(sorted(held.get(str(entry["id"]), []))),
        )
        for entry in declared()
    ]
