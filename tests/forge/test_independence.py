"""The forge must not share code with the client it stands in for (DESIGN §2)."""

from __future__ import annotations

import ast
from pathlib import Path

SANDBOX = Path(__file__).resolve().parents[2] / "sandbox_forge"


def test_sandbox_imports_nothing_else_from_github_mcp():
    offenders = []
    for path in sorted(SANDBOX.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                module = node.module or ""
                outside = module.startswith("github_mcp")
                if outside:
                    offenders.append(f"{path.name}: from {'.' * node.level}{module}")
            elif isinstance(node, ast.Import):
                offenders += [
                    f"{path.name}: import {alias.name}"
                    for alias in node.names
                    if alias.name.startswith("github_mcp")
                ]
    assert offenders == []
