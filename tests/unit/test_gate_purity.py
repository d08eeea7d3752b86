"""The gate decides without I/O: its module, and every module of ours it imports, import
nothing that does I/O, runs an event loop or belongs to a framework, and define no
coroutine. Read from the source (no import, no subprocess)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GATE = "github_mcp.policy.gate"
# Standard-library and third-party roots a pure decision has no use for.
FORBIDDEN = {
    "asyncio", "anyio", "socket", "ssl", "subprocess", "os", "io", "pathlib", "shutil",
    "threading", "multiprocessing", "time", "logging", "sqlite3", "urllib", "http",
    "httpx", "httpx2", "requests", "redis", "fastmcp", "mcp", "mcp_types", "starlette",
    "uvicorn", "pydantic", "pydantic_settings", "prometheus_client", "opentelemetry",
}  # fmt: skip


def _source(module: str) -> Path:
    base = ROOT.joinpath(*module.split("."))
    return base / "__init__.py" if base.is_dir() else base.with_suffix(".py")


def _imports(tree: ast.Module) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _closure() -> dict[str, set[str]]:
    """Every module of ours the gate reaches, with what each imports."""
    seen: dict[str, set[str]] = {}
    todo = [GATE]
    while todo:
        module = todo.pop()
        if module in seen or not _source(module).is_file():
            continue
        tree = ast.parse(_source(module).read_text())
        seen[module] = _imports(tree)
        assert not [
            node.name for node in ast.walk(tree) if isinstance(node, ast.AsyncFunctionDef)
        ], f"{module} defines a coroutine"
        todo += [name for name in seen[module] if name.startswith("github_mcp.")]
    return seen


def test_the_gate_imports_no_io_async_or_framework_code():
    closure = _closure()
    # the rules, the refusals' texts, the flow guard's decision and the error type
    assert set(closure) == {
        GATE,
        "github_mcp.policy.flow_guard",
        "github_mcp.policy.refusals",
        "github_mcp.kernel.errors",
    }
    for module, names in closure.items():
        bad = sorted(name for name in names if name.split(".")[0] in FORBIDDEN)
        assert not bad, f"{module} imports {bad}"


def test_the_check_sees_a_forbidden_import(tmp_path):
    tree = ast.parse("import asyncio\nfrom fastmcp import Context\nfrom os import path\n")
    found = {name.split(".")[0] for name in _imports(tree)}
    assert found & FORBIDDEN == {"asyncio", "fastmcp", "os"}
