"""The toolsets as data (github_mcp/catalog/toolsets.toml): every toolset declared once with
a description and a default flag, every built-in tool held by exactly one of them, the
settings' vocabulary read from the same declaration, and docs/TOOLS.md (the generated index
of every tool; tests/test_docs.py keeps it current) showing each tool's toolset, kind,
binding and whether it runs as a task as the tool index records them."""

from __future__ import annotations

import re

from github_mcp.catalog.toolsets import declared, toolsets
from github_mcp.cli.docs_gen import DOCS
from github_mcp.config import DEFAULT_TOOLS, DEFAULT_TOOLSETS, TOOLSETS
from github_mcp.pipeline.tool_index import load


def test_each_toolset_is_declared_once_with_a_description_and_a_default_flag():
    ids = [str(entry["id"]) for entry in declared()]
    assert len(ids) == len(set(ids)) and tuple(ids) == TOOLSETS
    for entry in declared():
        assert set(entry) == {"id", "description", "default"}, entry
        assert isinstance(entry["default"], bool)
        assert str(entry["description"]).endswith("."), entry
    defaults = {str(e["id"]) for e in declared() if e["default"]}
    assert defaults == {str(t) for t in DEFAULT_TOOLSETS}
    assert {"actions", "workspace"}.isdisjoint(defaults)


def test_every_built_in_tool_is_held_by_exactly_one_toolset():
    index = load()
    sets = toolsets((name, entry.toolset) for name, entry in index.items())
    held = [name for t in sets for name in t.tools]
    assert sorted(held) == sorted(index)
    assert all(t.tools for t in sets), [t.id for t in sets if not t.tools]
    # the default list's single tools come from toolsets that are not listed by default
    hidden = {name for t in sets if not t.default for name in t.tools}
    assert DEFAULT_TOOLS <= hidden


def test_the_tools_page_shows_each_tools_toolset_kind_binding_and_tasks():
    page = (DOCS / "TOOLS.md").read_text()
    sections = dict(re.findall(r"^## (\w+)\n\n.*?\n\n(\|.*?)(?=\n\n)", page, re.M | re.S))
    index = load()
    rows = 0
    for name, entry in index.items():
        row = re.search(rf"^\| `{name}\(.*$", sections[entry.toolset], re.M)
        assert row, (name, entry.toolset)
        cells = [cell.strip() for cell in row.group(0).split(" | ")]
        kind, binding, tasks = cells[1], cells[3], cells[4]
        assert kind.startswith("write") == entry.write, (name, kind)
        assert binding == (entry.binding.split(":")[0] if entry.write and entry.binding else "")
        assert (tasks == "yes") == entry.tasks, (name, tasks)
        rows += 1
    assert rows == len(index) > 100
    assert sum(entry.tasks for entry in index.values()) >= 8  # the long ones: tests, waits…
