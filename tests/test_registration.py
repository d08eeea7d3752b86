"""Registration fails loudly: unknown toolsets, mistyped GITHUB_MCP_TOOLSETS, broken
extension modules and tools modules left out are caught, never silently dropped."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic import ValidationError

import github_mcp.tools
from github_mcp.config import TOOLSETS, Settings, Toolset
from github_mcp.pipeline.extension_tools import import_extension_tools
from github_mcp.pipeline.registry import REGISTRY, tool
from github_mcp.pipeline.views import CATALOG_TOOLS
from tests.conftest import mcp_client

ROOT = Path(__file__).resolve().parents[1]
TOOLS_DIR = ROOT / "github_mcp" / "tools"


def test_an_unknown_toolset_fails_at_decoration():
    before = dict(REGISTRY)
    with pytest.raises(ValueError, match="unknown toolset 'my_team'; valid: meta, repos"):

        @tool(toolset="my_team")
        async def my_team_tool(call) -> None:  # pragma: no cover - never registered
            raise AssertionError

    assert REGISTRY == before


def test_every_registered_tool_names_a_known_toolset():
    assert REGISTRY
    assert all(isinstance(spec.toolset, Toolset) for spec in REGISTRY.values())
    assert {spec.toolset for spec in REGISTRY.values()} == set(Toolset)


@pytest.mark.parametrize("value", ["pul_requests", "repos,fles", "meta ,  nope"])
def test_a_mistyped_toolsets_setting_is_refused(value: str, monkeypatch):
    monkeypatch.setenv("GITHUB_MCP_TOOLSETS", value)
    with pytest.raises(ValidationError) as raised:
        Settings()
    message = str(raised.value)
    assert "unknown toolset" in message and "valid: all, default, " + ", ".join(TOOLSETS) in message


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("", TOOLSETS),
        ("all", TOOLSETS),
        ("default", TOOLSETS),
        ("Repos, search", ("repos", "search")),
    ],
)
def test_valid_toolsets_settings(value: str, expected: tuple[str, ...], monkeypatch):
    monkeypatch.setenv("GITHUB_MCP_TOOLSETS", value)
    assert Settings().toolset_list == expected


def test_the_server_refuses_to_start_with_an_unknown_toolset():
    env = {k: v for k, v in os.environ.items() if not k.startswith("GITHUB_")}
    env["GITHUB_MCP_TOOLSETS"] = "repos,pul_requests"
    result = subprocess.run(
        [sys.executable, "main.py", "serve"],
        cwd=ROOT,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert "unknown toolset(s) pul_requests" in result.stderr
    assert "valid: all, default, meta" in result.stderr


async def test_only_the_chosen_toolsets_are_listed(make_runtime):
    rt = make_runtime(toolsets="search,meta")
    async with mcp_client(rt) as client:
        names = {t.name for t in await client.list_tools()}
    expected = {
        s.name for s in REGISTRY.values() if s.toolset in ("search", "meta") and not s.app_only
    }
    # find_tools and enable_toolset are listed only in core mode (GITHUB_MCP_TOOLS=core)
    assert names == expected - CATALOG_TOOLS and names


def _extension(tmp_path: Path, monkeypatch, name: str, body: str) -> str:
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(body))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    return name


def test_an_import_error_inside_the_extension_module_stops_the_server(tmp_path, monkeypatch):
    name = _extension(tmp_path, monkeypatch, "ext_missing_dep", "import not_installed_anywhere\n")
    with pytest.raises(ModuleNotFoundError, match="not_installed_anywhere"):
        import_extension_tools(name)


def test_an_extension_tool_with_an_unknown_toolset_stops_the_server(tmp_path, monkeypatch):
    name = _extension(
        tmp_path,
        monkeypatch,
        "ext_unknown_toolset",
        """
        from github_mcp.pipeline.registry import tool

        @tool(toolset="my_team")
        async def team_tool(call):
            return None
        """,
    )
    with pytest.raises(ValueError, match="unknown toolset 'my_team'"):
        import_extension_tools(name)


def test_an_absent_extension_module_is_skipped():
    before = dict(REGISTRY)
    import_extension_tools("no_such_extension_module_here")
    assert REGISTRY == before


def test_the_shipped_extension_module_loads_and_the_destructive_tools_ship_in_the_package():
    import_extension_tools()  # the checkout's extra_tools.py: an empty extension point
    shipped = {"delete_file", "move_file", "delete_remote_branch"}
    assert {REGISTRY[name].handler.__module__ for name in shipped} == {
        "github_mcp.tools.repos.destructive"
    }


def test_every_tools_module_is_imported_and_registers_tools():
    on_disk = {
        ".".join(p.relative_to(TOOLS_DIR).with_suffix("").parts)
        for p in TOOLS_DIR.rglob("*.py")
        if not any(part.startswith("_") for part in p.relative_to(TOOLS_DIR).parts)
    }
    assert "pulls.automation" in on_disk and "issues" in on_disk  # domain packages too
    assert set(github_mcp.tools.TOOL_MODULES) == on_disk
    registering = {spec.handler.__module__ for spec in REGISTRY.values()}
    assert {f"github_mcp.tools.{name}" for name in on_disk} <= registering
