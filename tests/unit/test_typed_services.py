"""No service hands untyped JSON upward: a function in github_mcp/services whose return
annotation is bare `Any` or holds `dict[str, Any]` fails this test, by name. A service's
result is a typed model (the tools' output schemas are generated from it) or a TypedDict
of the GitHub fields it reads; `dict[str, Any]` stays allowed for arguments."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SERVICES = ROOT / "github_mcp" / "services"


def _untyped(annotation: ast.expr) -> bool:
    text = ast.unparse(annotation).replace(" ", "")
    return text in ("Any", "typing.Any") or "dict[str,Any]" in text or "Dict[str,Any]" in text


def untyped_returns(root: Path) -> list[str]:
    """`path:line name` of every function under `root` returning untyped data."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.returns:
                if _untyped(node.returns):
                    found.append(f"{path.relative_to(root).as_posix()}:{node.lineno} {node.name}")
    return found


def test_the_check_names_untyped_returns_and_spares_typed_ones(tmp_path: Path):
    (tmp_path / "svc.py").write_text(
        "from typing import Any\n"
        "async def raw() -> dict[str, Any]: ...\n"
        "def pages() -> list[dict[str, Any]]: ...\n"
        "def anything() -> Any: ...\n"
        "def fine(body: dict[str, Any]) -> dict[str, str]: ...\n"
        "class Model:\n"
        "    def dump(self) -> 'dict[str, Any]': ...\n"
    )
    assert untyped_returns(tmp_path) == [
        "svc.py:2 raw",
        "svc.py:3 pages",
        "svc.py:4 anything",
        "svc.py:7 dump",
    ]


def test_no_service_returns_untyped_json():
    assert len(list(SERVICES.rglob("*.py"))) > 50  # the services were found
    offenders = untyped_returns(SERVICES)
    assert not offenders, (
        "services returning Any or dict[str, Any] (return a typed model or a TypedDict): "
        + ", ".join(offenders)
    )
