"""Every tool's schemas and annotations match their committed snapshots (see
tests/tool_snapshots.py), so no schema changes by accident, e.g. through compact_schema."""

from __future__ import annotations

import difflib
import json

from tests.tool_snapshots import (
    SNAPSHOT_DIR,
    UPDATE_COMMAND,
    current_snapshots,
    render,
    stored_snapshots,
)


async def test_tool_listing_matches_the_snapshots():
    current = await current_snapshots()
    stored = stored_snapshots()
    assert current, "no tools listed"
    problems = []
    for name in sorted(set(current) - set(stored)):
        problems.append(f"{name}: new tool without a snapshot")
    for name in sorted(set(stored) - set(current)):
        problems.append(f"{name}: snapshot of a tool that is no longer listed")
    for name in sorted(set(current) & set(stored)):
        now = render(current[name])
        if now != stored[name]:
            diff = difflib.unified_diff(
                stored[name].splitlines(), now.splitlines(), f"{name} (snapshot)", f"{name} (now)"
            )
            problems.append("\n".join(list(diff)[:40]))
    assert not problems, (
        f"tool schemas differ from {SNAPSHOT_DIR}; if the change is intended, run "
        f"`{UPDATE_COMMAND}` and commit the files.\n\n" + "\n\n".join(problems)
    )


def test_snapshot_files_are_rendered_canonically():
    for name, text in stored_snapshots().items():
        assert render(json.loads(text)) == text, name
