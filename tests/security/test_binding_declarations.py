"""Bindings by construction: every write tool declares what its approval is bound to,
either a binder that reads the remote state its effect depends on (a head SHA, a
release's notes and target, a gist's files, a project item's value) or ArgumentsOnly with
the reason its arguments are its whole effect. The registry refuses a write that declares
neither, at import, for the built-in tools, the shipped extension module and an operator's
own; the walk below covers every write tool registered."""

from __future__ import annotations

import inspect
import sys
import textwrap

import pytest

import extra_tools  # noqa: F401  (the operator's extension module: its tools are walked too)
import github_mcp.tools  # noqa: F401  (registers every built-in tool)
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.pipeline.registry import REGISTRY, ArgumentsOnly, tool
from github_mcp.pipeline.tool_spec import binding_text

# Writes whose approval must name remote state: each reads it, never ArgumentsOnly.
MUST_BIND = {
    "merge_pull_request", "update_pull_request", "update_pr_branch", "delete_remote_branch",
    "trigger_workflow_dispatch", "rerun_failed_jobs", "commit_workspace", "manage_stacked_prs",
    "delete_repository", "publish_release", "update_release", "update_gist",
    "update_project_item_field", "update_project_items", "delete_project_item",
    "set_issue_fields", "assign_copilot_to_issue",
    "pending_pr_review", "create_pr_review", "create_branch", "create_pull_request",
    "commit_files", "apply_text_update_and_commit", "apply_patch_and_commit",
    "update_file_sections_and_commit", "update_files_and_open_pr", "delete_file", "move_file",
}  # fmt: skip


def _writes() -> list:
    return [spec for spec in REGISTRY.values() if spec.write]


def test_every_registered_write_tool_declares_its_binding():
    writes = _writes()
    assert len(writes) >= 60, "the registry should hold every write tool"
    undeclared = [s.name for s in writes if s.binds is None]
    assert undeclared == []
    for spec in writes:
        if isinstance(spec.binds, ArgumentsOnly):
            assert len(spec.binds.reason) > 20, spec.name
        else:
            assert inspect.iscoroutinefunction(spec.binds), spec.name
            assert (spec.binds.__doc__ or "").strip(), f"{spec.name}: say what it binds"
    assert not [s.name for s in REGISTRY.values() if not s.write and s.binds is not None]


def test_the_writes_that_depend_on_remote_state_read_it():
    bound = {s.name for s in _writes() if s.binder is not None}
    assert MUST_BIND - bound == set()
    # the listing the closing note is generated from names every write
    lines = {s.name: binding_text(s.binds) for s in _writes()}
    assert lines["publish_release"].startswith("bound: ")
    assert "notes" in lines["publish_release"]
    assert lines["comment_on_issue"].startswith("arguments only: ")


def test_a_write_without_a_declaration_cannot_be_registered():
    before = dict(REGISTRY)

    async def leak_it(call, full_name: str):
        """A write that forgot its binding."""

    with pytest.raises(TypeError, match="'leak_it' writes but declares no binds="):
        tool(toolset="repos", write=True, target=None)(leak_it)
    with pytest.raises(TypeError, match="needs the reason"):
        tool(toolset="repos", write=True, target=None, binds=ArgumentsOnly(" "))(leak_it)
    with pytest.raises(TypeError, match="binds= takes a binder"):
        tool(toolset="repos", write=True, target=None, binds="head")(leak_it)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="is a read: only writes bind"):
        tool(toolset="repos", binds=ArgumentsOnly("the arguments are everything"))(leak_it)
    assert REGISTRY == before  # nothing half-registered


def test_an_operators_write_tool_without_a_declaration_stops_the_server(tmp_path, monkeypatch):
    name = "ext_unbound_write"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            """
            from github_mcp.pipeline.registry import tool

            @tool(toolset="repos", write=True, target=None)
            async def post_somewhere(call, full_name: str):
                \"\"\"Publish something.\"\"\"
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    before = dict(REGISTRY)
    with pytest.raises(TypeError, match="'post_somewhere' writes but declares no binds="):
        import_extension_tools(name)
    assert REGISTRY == before


def test_an_operators_declared_write_tool_registers(tmp_path, monkeypatch):
    name = "ext_bound_write"
    (tmp_path / f"{name}.py").write_text(
        textwrap.dedent(
            """
            from github_mcp.pipeline.registry import ArgumentsOnly, tool
            from github_mcp.tools.repos.writes import branch_at

            @tool(toolset="repos", write=True, target=None,
                  binds=ArgumentsOnly("the note given is the whole of what is posted"))
            async def post_note(call, full_name: str):
                \"\"\"Post a note.\"\"\"

            @tool(toolset="repos", write=True, target="branch", binds=branch_at)
            async def stamp_branch(call, full_name: str, branch: str):
                \"\"\"Stamp a branch.\"\"\"
            """
        )
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        import_extension_tools(name)
        assert isinstance(REGISTRY["post_note"].binds, ArgumentsOnly)
        assert REGISTRY["stamp_branch"].binder is not None
    finally:
        REGISTRY.pop("post_note", None)
        REGISTRY.pop("stamp_branch", None)
