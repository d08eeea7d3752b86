"""Private names of fastmcp and mcp are used in one module only, written for the pinned
versions: an upgrade of either fails here first, pointing at what to re-read."""

from __future__ import annotations

import ast
from importlib import metadata

from github_mcp.serving import framework_internals
from tests.conftest import ROOT

ALLOWED = {"github_mcp/serving/framework_internals.py"}
LIBRARIES = ("fastmcp", "mcp", "mcp_types")
STDLIB_PRIVATE = {"_exit"}  # os._exit
# Modules that still reach into the framework, being moved onto its public API (the HTTP
# session layer and the OAuth sign-in). The set may only shrink: a module not named here
# that uses a private name fails the test.
OUTSTANDING = {
    "github_mcp/serving/json_answers.py",
    "github_mcp/serving/session_context.py",
    "github_mcp/serving/session_hibernation.py",
    "github_mcp/serving/proxy_session_ids.py",
    "github_mcp/hosted/_provider.py",
    "github_mcp/hosted/_rotation.py",
    "github_mcp/approvals/approver.py",
    "github_mcp/status/github_signin.py",
}


def test_the_internals_module_was_written_for_the_installed_versions():
    for name, version in framework_internals.WRITTEN_FOR.items():
        assert metadata.version(name) == version, (
            f"{name} is {metadata.version(name)}, not {version}: re-read "
            "github_mcp/serving/framework_internals.py against it, then update WRITTEN_FOR"
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


def _foreign_private_uses(path, own: set[str]) -> list[str]:
    tree = ast.parse(path.read_text())
    uses = _private_imports(tree)
    for node in ast.walk(tree):
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
