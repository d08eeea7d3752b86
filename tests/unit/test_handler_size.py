"""Handlers stay thin: each parses its arguments, calls one service and shapes the answer.
A handler past 40 lines (signature and docstring included) is logic that belongs in a
service, so this fails and names it."""

from __future__ import annotations

import ast
import inspect
import textwrap

import github_mcp.tools  # noqa: F401  (registers every tool)
from github_mcp.pipeline.registry import REGISTRY

MAX_HANDLER_LINES = 40


def handler_lines(handler) -> int:
    """Lines from `async def` to the end of the body (decorators not counted)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(handler)))
    node = tree.body[0]
    assert isinstance(node, ast.AsyncFunctionDef | ast.FunctionDef)
    assert node.end_lineno is not None
    return node.end_lineno - node.lineno + 1


def test_the_measure_counts_a_function_whole():
    def five(a: int) -> int:
        """Doc."""
        b = a + 1
        return b

    assert handler_lines(five) == 4
    assert handler_lines(handler_lines) == len(inspect.getsource(handler_lines).splitlines())


def test_no_handler_is_over_40_lines():
    import extra_tools  # noqa: F401  (the extension point's tools are handlers too)

    assert len(REGISTRY) > 50  # every tools module was imported
    too_long = {
        f"{spec.handler.__module__}.{name}": lines
        for name, spec in REGISTRY.items()
        if (lines := handler_lines(spec.handler)) > MAX_HANDLER_LINES
    }
    assert not too_long, f"handlers over {MAX_HANDLER_LINES} lines: {too_long}"
