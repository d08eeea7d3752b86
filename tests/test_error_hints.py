"""Every user-facing error carries a hint (issue 21).

The rule: each construction of `GitHubMCPError`, and each call of an error helper of
`github_mcp/kernel/errors.py`, passes `hint=` unless the helper supplies one itself.
The hint says what to do next: which argument to change, which tool to call, which
setting to set, or that a retry helps. A static walk, so a new raise site without a
hint fails here before any user meets it.
"""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

from github_mcp.kernel import errors

PACKAGE = Path(__file__).resolve().parents[1] / "github_mcp"

# (module, enclosing function) of errors that never reach a user; keep this tiny.
ALLOWED = {
    # a sentinel value for "could not count lines" in the approval summary; never raised
    ("pipeline/human_approval.py", "<module>"),
}


def _helpers() -> dict[str, bool]:
    """Error helpers in kernel/errors.py -> whether the helper supplies a hint itself."""
    found = {}
    for name, fn in vars(errors).items():
        if inspect.isfunction(fn) and fn.__module__ == errors.__name__:
            if inspect.signature(fn).return_annotation == "GitHubMCPError":
                found[name] = bool(fn("probe").hint)
    return found


def _called(node: ast.Call) -> str | None:
    func = node.func
    if isinstance(func, ast.Name):
        return func.id
    return func.attr if isinstance(func, ast.Attribute) else None


def _has_hint(node: ast.Call) -> bool:
    for kw in node.keywords:
        if kw.arg == "hint":
            return not (isinstance(kw.value, ast.Constant) and not kw.value.value)
    return False


def _unhinted(source: str, module: str, helpers: dict[str, bool]) -> list[str]:
    needs = {"GitHubMCPError"} | {name for name, hinted in helpers.items() if not hinted}
    out: list[str] = []

    def visit(node: ast.AST, scope: str) -> None:
        for child in ast.iter_child_nodes(node):
            inner = scope
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                inner = child.name
            if isinstance(child, ast.Call) and _called(child) in needs:
                if not _has_hint(child) and (module, scope) not in ALLOWED:
                    out.append(f"{module}:{child.lineno} ({scope})")
            visit(child, inner)

    visit(ast.parse(source), "<module>")
    return out


def test_helpers_are_found_and_defaults_are_real() -> None:
    helpers = _helpers()
    assert {"invalid_input", "not_found", "conflict"} <= set(helpers)
    assert helpers["not_found"] and helpers["conflict"]
    # a caller's own hint wins over the helper's default
    assert errors.not_found("x", hint="call list_labels").hint == "call list_labels"


def test_the_walk_flags_a_site_without_a_hint() -> None:
    source = (
        "def f():\n"
        "    raise invalid_input('bad')\n"
        "def g():\n"
        "    raise GitHubMCPError(ErrorCode.INTERNAL, 'x', hint=None)\n"
        "def h():\n"
        "    raise invalid_input('bad', hint='give a positive number')\n"
        "def k():\n"
        "    raise not_found('gone')\n"
    )
    assert _unhinted(source, "m.py", _helpers()) == ["m.py:2 (f)", "m.py:4 (g)"]


def test_every_error_in_the_package_carries_a_hint() -> None:
    helpers = _helpers()
    missing: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        module = path.relative_to(PACKAGE).as_posix()
        if module == "kernel/errors.py":
            continue  # the helpers forward the caller's hint
        missing += _unhinted(path.read_text(encoding="utf-8"), module, helpers)
    assert not missing, "errors without a hint (add hint=...):\n" + "\n".join(missing)
