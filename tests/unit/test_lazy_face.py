"""The pull-requests service face is lazy (names imported on first use): its run-time
table must name exactly what its static imports name, from the same modules, and every
name must resolve to the object its module defines."""

from __future__ import annotations

import ast
import importlib
import inspect

import pytest

from github_mcp.services import pulls


def _static_face() -> dict[str, str]:
    """name -> module, from the face's `if TYPE_CHECKING:` imports."""
    tree = ast.parse(inspect.getsource(pulls))
    found: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and getattr(node.test, "id", None) == "TYPE_CHECKING":
            for stmt in node.body:
                assert isinstance(stmt, ast.ImportFrom) and stmt.module, ast.dump(stmt)
                for alias in stmt.names:
                    found[alias.asname or alias.name] = f"{stmt.module}"
    return found


def test_the_run_time_table_names_what_the_static_imports_name():
    static = _static_face()
    assert static, "the face's TYPE_CHECKING imports were not found"
    homes = dict(pulls._HOMES)
    # a module the face re-exports is imported by its full name at run time
    assert homes.pop("issue_views") == "github_mcp.services.issues.issue_views"
    assert static.pop("issue_views") == "github_mcp.services.issues"
    assert homes == static
    assert sorted(pulls.__all__) == sorted([*homes, "issue_views"])


def test_every_name_resolves_to_its_modules_object():
    for name, home in pulls._HOMES.items():
        module = importlib.import_module(home)
        expected = module if name == "issue_views" else getattr(module, name)
        assert getattr(pulls, name) is expected, name
    from github_mcp.services.pulls import compact_pr, find_open_pr

    assert find_open_pr.__module__ == compact_pr.__module__ == "github_mcp.services.pulls._service"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        pulls.no_such_name  # noqa: B018 - the lookup is what is tested
