"""Every test checks something: a test function with no assertion passes whatever the code
does. Read statically from the test files: a test must assert, expect an exception
(pytest.raises, pytest.fail), or call a helper of the test tree that does, transitively."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.AST) -> Iterator[FunctionNode]:
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            yield node


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def _checks_directly(fn: FunctionNode) -> bool:
    for node in ast.walk(fn):
        if isinstance(node, ast.Assert | ast.Raise):
            return True
        if isinstance(node, ast.Call) and _called_name(node) in {"raises", "fail", "warns"}:
            return True
    return False


def _calls(fn: FunctionNode) -> set[str]:
    return {
        name
        for node in ast.walk(fn)
        if isinstance(node, ast.Call) and (name := _called_name(node)) is not None
    }


def _test_tree() -> dict[Path, ast.Module]:
    return {
        path: ast.parse(path.read_text(encoding="utf-8"), str(path))
        for path in TESTS.rglob("*.py")
        if "fixtures" not in path.relative_to(TESTS).parts
    }


def _checking_helpers(trees: dict[Path, ast.Module]) -> set[str]:
    """Names of functions (anywhere in the test tree) that check something, directly or
    through another such function. By name: a near-miss only errs towards leniency."""
    calls: dict[str, set[str]] = {}
    checking: set[str] = set()
    for tree in trees.values():
        for fn in _functions(tree):
            calls.setdefault(fn.name, set()).update(_calls(fn))
            if _checks_directly(fn):
                checking.add(fn.name)
    grew = True
    while grew:
        grew = False
        for name, callees in calls.items():
            if name not in checking and callees & checking:
                checking.add(name)
                grew = True
    return checking


def unchecked_tests(trees: dict[Path, ast.Module]) -> list[str]:
    checking = _checking_helpers(trees)
    found = []
    for path, tree in trees.items():
        if not path.name.startswith("test_"):
            continue
        for fn in _functions(tree):
            if fn.name.startswith("test_") and not (_checks_directly(fn) or _calls(fn) & checking):
                found.append(f"{path.relative_to(TESTS)}:{fn.lineno} {fn.name}")
    return found


def test_every_test_function_checks_something():
    assert unchecked_tests(_test_tree()) == []


def test_the_check_catches_a_test_without_an_assertion():
    source = (
        "def helper(x):\n    assert x\n"
        "def test_calls_helper():\n    helper(1)\n"
        "def test_checks_nothing():\n    print(1)\n"
        "def test_expects():\n    with pytest.raises(ValueError):\n        int('x')\n"
    )
    trees = {TESTS / "test_sample.py": ast.parse(source)}
    assert unchecked_tests(trees) == ["test_sample.py:5 test_checks_nothing"]
