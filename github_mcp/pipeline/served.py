"""The tools this server serves: the selected toolsets' tools, less writes in read-only
mode, as one table every transport reads.

What a tool is (name, toolset, write, schemas) comes from the tool index
(tool_index.py) for the built-in tools, so listing them imports none; the operator's
extension tools are described from their specs. A tool's spec, with its handler, is
imported the first time a call or a description needs it. `warm` imports the rest while
the client is busy with the listing, so a later first call pays no import of its own.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from github_mcp.pipeline import tool_index, tool_spec
from github_mcp.pipeline.schema_listing import listed_schema
from github_mcp.pipeline.tool_index import ToolEntry
from github_mcp.pipeline.tool_spec import binding_text

if TYPE_CHECKING:
    from github_mcp.config import Settings
    from github_mcp.pipeline.tool_spec import ToolSpec


class ServedTools(Mapping[str, "ToolSpec"]):
    """Name -> spec for every served tool; `entries` describe them without imports."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.entries: dict[str, ToolEntry] = {}
        self._listed: dict[str, dict[str, Any]] = {}
        self.refresh()

    def refresh(self) -> None:
        """The operator's tools (and any a stale index misses), then the indexed ones,
        less any whose module was imported without registering it (a stale index)."""
        indexed = tool_index.load()
        found: dict[str, ToolEntry] = {}
        for name, spec in tool_spec.REGISTRY.items():
            if name not in indexed:
                found[name] = self.entries.get(name) or entry_of(spec)
        for name, entry in indexed.items():
            if name in tool_spec.REGISTRY or entry.module not in sys.modules:
                found[name] = entry
        self.entries = {name: e for name, e in found.items() if self._selected(e)}

    def _selected(self, entry: ToolEntry) -> bool:
        settings = self.settings
        return entry.toolset in settings.toolset_list and not (settings.read_only and entry.write)

    def __getitem__(self, name: str) -> ToolSpec:
        entry = self.entries[name]
        spec = tool_spec.REGISTRY.get(name)
        if spec is None:
            importlib.import_module(entry.module)
            spec = tool_spec.REGISTRY[name]
        return spec

    def __iter__(self) -> Iterator[str]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: object) -> bool:
        return name in self.entries

    def listed_input(self, name: str) -> dict[str, Any]:
        """The input schema as tools/list shows it (the lighter form)."""
        found = self._listed.get(name)
        if found is None:
            found = self._listed[name] = listed_schema(self.entries[name].input_schema)
        return found

    def schemas(self, name: str) -> tuple[dict[str, Any], dict[str, Any] | None]:
        return self.listed_input(name), self.entries[name].output_schema

    def modules(self) -> list[str]:
        """The modules of the served tools not imported yet, in listing order."""
        seen: dict[str, None] = {}
        for name, entry in self.entries.items():
            if name not in tool_spec.REGISTRY:
                seen.setdefault(entry.module)
        return list(seen)


def entry_of(spec: ToolSpec) -> ToolEntry:
    """A tool as a client sees it, from its spec (the index is made of these)."""
    from github_mcp.pipeline.tool_schemas import parsed_schemas  # the MCP framework

    inputs, output = parsed_schemas(spec)
    annotations = spec.annotations.model_dump(by_alias=True, exclude_none=True, mode="json")
    return ToolEntry(
        name=spec.name,
        module=spec.handler.__module__,
        toolset=spec.toolset.value,
        write=spec.write,
        description=spec.description,
        annotations=annotations,
        input_schema=inputs,
        output_schema=output,
        target=spec.target_label,
        destructive=spec.destructive,
        binding=binding_text(spec.binds) if spec.write else None,
        tasks=spec.tasks,
        app_only=spec.app_only,
    )
