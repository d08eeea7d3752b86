"""Private names of fastmcp and mcp are used in one module only, written for the pinned
versions: an upgrade of either fails here first, pointing at what to re-read."""

from __future__ import annotations

import ast
from importlib import metadata

from github_mcp.kernel import framework_internals
from tests.conftest import ROOT

ALLOWED = {"github_mcp/kernel/framework_internals.py"}
LIBRARIES = ("fastmcp", "mcp", "mcp_types")
STDLIB_PRIVATE = {"_exit"}  # os._exit
# Modules that still reach into the framework, being moved onto its public API. The set
# may only shrink: a module not named here that uses a private name fails the test.
OUTSTANDING: set[str] = set()


def test_the_internals_module_was_written_for_the_installed_versions():
    for name, version in framework_internals.WRITTEN_FOR.items():
        assert metadata.version(name) == version, (
            f"{name} is {metadata.version(name)}, not {version}: re-read "
            "github_mcp/kernel/framework_internals.py against it, then update WRITTEN_FOR"
        )


def _private_imports(tree: ast.AST) -> list[str]:
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in LIBRARIES:
            module = node.module or ""
            if any(part.startswith("_") for part in module.split(".")):
                found.append(module)
            found += [a.name for a in node.names if a.name.startswith("_")]
    return found


def _own_private_names() -> set[str]:
    """Private names this package defines itself (its own attributes and functions)."""
    names: set[str] = set()
    for path in (ROOT / "github_mcp").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                names.add(node.name)
            elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store):
                names.add(node.attr)
            elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                names.add(node.id)
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
            elif isinstance(node, ast.arg):
                names.add(node.arg)
    return {name for name in names if name.startswith("_")}


def _named_by_string(node: ast.AST) -> bool:
    """getattr/setattr/hasattr(x, "_name"): an attribute reached by its name as a string."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id in {"getattr", "setattr", "hasattr"}
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
        and isinstance(node.args[1].value, str)
    )


def _foreign_private_uses(path, own: set[str]) -> list[str]:
    tree = ast.parse(path.read_text())
    uses = _private_imports(tree)
    for node in ast.walk(tree):
        if _named_by_string(node):
            assert isinstance(node, ast.Call)
            node = ast.Attribute(value=node.args[0], attr=node.args[1].value, lineno=node.lineno)
        if not isinstance(node, ast.Attribute):
            continue
        attr = node.attr
        if not attr.startswith("_") or attr.startswith("__") or attr in own | STDLIB_PRIVATE:
            continue
        uses.append(f"line {node.lineno}: .{attr}")
    return uses


def test_no_private_name_of_the_framework_outside_the_one_module():
    own = _own_private_names()
    found = {}
    for path in (ROOT / "github_mcp").rglob("*.py"):
        relative = path.relative_to(ROOT).as_posix()
        if relative in ALLOWED:
            continue
        uses = _foreign_private_uses(path, own)
        if uses:
            found[relative] = uses
    assert set(found) <= OUTSTANDING, {k: v for k, v in found.items() if k not in OUTSTANDING}
    assert OUTSTANDING <= set(found), (
        f"no longer private, drop from OUTSTANDING: {OUTSTANDING - set(found)}"
    )
