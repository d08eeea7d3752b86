"""`check` and `tools`: the registered tools (the built-in ones and the operator's
extra_tools.py, imported by the caller) as this configuration serves them, and which of
them a session lists before it enables more (find_tools, enable_toolset)."""

from __future__ import annotations

import json

from github_mcp.catalog.tool_catalog import listed as listed_names
from github_mcp.catalog.tool_catalog import view_of
from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.pipeline.tool_index import ToolEntry


def _served(settings: Settings) -> tuple[Runtime, list[ToolEntry], set[str]]:
    rt = Runtime.create(settings)
    rt.bound_specs.refresh()  # with the operator's tools, imported by the caller
    entries = rt.bound_specs.entries
    listed = set(listed_names(entries, view_of(settings, {}), set()))
    listed -= {name for name, entry in entries.items() if entry.app_only}  # a card's own
    return rt, list(entries.values()), listed


def check(settings: Settings) -> int:
    rt, specs, listed = _served(settings)
    report = {
        "ok": True,
        "tools": len(specs),
        "listed": len(listed & {s.name for s in specs}),
        "write_tools": sum(s.write for s in specs),
        "credential_kind": rt.token_kind,
        "github_api_url": settings.github_api_url,
    }
    print(json.dumps(report))
    return 0


def list_tools(settings: Settings, as_json: bool) -> int:
    _, specs, listed = _served(settings)
    if as_json:
        rows = [
            {"name": s.name, "toolset": s.toolset, "write": s.write, "listed": s.name in listed}
            for s in specs
        ]
        print(json.dumps(rows, indent=1))
        return 0
    for spec in specs:
        kind = "write" if spec.write else "read"
        shown = "listed" if spec.name in listed else "on request"
        print(f"{spec.name:34} {spec.toolset:14} {kind:5}  {shown}")
    return 0
