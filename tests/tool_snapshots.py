"""Snapshots of what clients see of every tool: input schema, output schema, annotations.

One JSON file per tool in tests/snapshots/tools/. tests/test_tool_snapshots.py fails when
a tool's listing differs from its file; after an intended change, regenerate them with

    make snapshots        (or: .venv/bin/python -m tests.tool_snapshots)

and review the diff like code.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastmcp import Client

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_mcp

SNAPSHOT_DIR = Path(__file__).resolve().parent / "snapshots" / "tools"
UPDATE_COMMAND = "make snapshots"
SNAPSHOT_KEYS = ("name", "annotations", "inputSchema", "outputSchema")  # as on the wire


def render(snapshot: dict[str, Any]) -> str:
    return json.dumps(snapshot, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


async def current_snapshots() -> dict[str, dict[str, Any]]:
    """Every tool as tools/list shows it, with all toolsets, writes and output schemas."""
    with tempfile.TemporaryDirectory() as scratch:
        settings = Settings(
            _env_file=None,  # type: ignore[call-arg]
            toolsets="all",
            output_schemas=True,  # the output contract is snapshotted too
            read_only=False,
            github_api_url="https://api.github.com",
            audit_log=Path(scratch) / "audit.jsonl",
            workspace_dir=Path(scratch) / "workspaces",
        )
        rt = Runtime.create(settings)
        try:
            async with Client(build_mcp(rt)) as client:
                listed = await client.list_tools()
        finally:
            await rt.aclose()
    snapshots = {}
    for tool in listed:
        wire = tool.model_dump(by_alias=True, exclude_none=True, mode="json")
        snapshots[tool.name] = {key: wire.get(key) for key in SNAPSHOT_KEYS}
    return snapshots


def stored_snapshots() -> dict[str, str]:
    return {path.stem: path.read_text() for path in sorted(SNAPSHOT_DIR.glob("*.json"))}


def write_snapshots(current: dict[str, dict[str, Any]]) -> list[str]:
    """Write every snapshot and delete those of tools that no longer exist; returns what changed."""
    SNAPSHOT_DIR.mkdir(parents=True, exist_ok=True)
    stored = stored_snapshots()
    changed = []
    for name, snapshot in sorted(current.items()):
        text = render(snapshot)
        if stored.get(name) != text:
            (SNAPSHOT_DIR / f"{name}.json").write_text(text)
            changed.append(name)
    for name in sorted(set(stored) - set(current)):
        (SNAPSHOT_DIR / f"{name}.json").unlink()
        changed.append(name)
    return changed


def main() -> int:
    changed = write_snapshots(asyncio.run(current_snapshots()))
    for name in changed:
        print(f"updated {SNAPSHOT_DIR / name}.json")
    print(f"{len(changed)} tool snapshot(s) changed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
