"""No function of the controller or the forge passes 60 lines: a longer one is a sequence
of steps waiting for names. The functions that were longer when the limit came were listed
with their length until each was split; the list is empty now and stays so."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("github_mcp", "sandbox_forge")
MAX_FUNCTION_LINES = 60

# Functions over the limit when it came, each to be split; all are now. Never add to this.
STILL_LONG: dict[str, int] = {}


def long_functions(root: Path) -> dict[str, int]:
    """Every function (methods and nested ones too) over the limit, by path::qualified name."""
    found: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            name = path.relative_to(root).as_posix()
            _walk(ast.parse(path.read_text(encoding="utf-8")), f"{name}::", found)
    return found


def _walk(node: ast.AST, prefix: str, found: dict[str, int]) -> None:
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
            lines = (child.end_lineno or child.lineno) - child.lineno + 1
            if lines > MAX_FUNCTION_LINES:
                found[prefix + child.name] = lines
            _walk(child, f"{prefix}{child.name}.", found)
        elif isinstance(child, ast.ClassDef):
            _walk(child, f"{prefix}{child.name}.", found)


def test_the_check_names_a_long_function_and_a_long_method(tmp_path: Path):
    package = tmp_path / "github_mcp"
    package.mkdir()
    body = "    x = 1\n" * (MAX_FUNCTION_LINES - 1)
    (package / "m.py").write_text(
        f"def exact():\n{body}\n\ndef long():\n{body}    x = 2\n\n"
        f"class C:\n    def long(self):\n    {body.replace(chr(10), chr(10) + '    ')}    x = 2\n"
    )
    assert long_functions(tmp_path) == {"github_mcp/m.py::long": 61, "github_mcp/m.py::C.long": 61}


def test_no_new_function_is_over_60_lines_and_the_old_ones_only_shrink():
    found = long_functions(ROOT)
    new = sorted(set(found) - set(STILL_LONG))
    assert not new, "functions over 60 lines (split into named steps): " + ", ".join(
        f"{name} ({found[name]})" for name in new
    )
    grown = sorted(name for name in found if name in STILL_LONG and found[name] > STILL_LONG[name])
    assert not grown, f"listed long functions that grew: {grown}"
    done = sorted(set(STILL_LONG) - set(found))
    assert not done, f"within the limit now: remove from STILL_LONG: {done}"
