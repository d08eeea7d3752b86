"""Regexes for text anyone can write: CI job logs and test-runner output.

Anyone who can push can make a workflow print whatever it likes, so the
parsers' regexes run on RE2, which matches in time linear in the input for
every pattern (an automaton, no backtracking): a line of 4 000 blanks costs
4 000 steps whatever the pattern, never 4 000 cubed. RE2 has no lookaround and
no backreferences; its `\\d`, `\\s` and `\\w` are ASCII, which is what runners
print around the parts we read. The parsers' `Budget` caps how much of an
input is read at all, so the work per parse is bounded by the caps, not by
the input.
"""

from __future__ import annotations

import re
from typing import Any

import re2

__all__ = [
    "LinearPattern",
    "compile_linear",
    "compile_user_pattern",
    "escape_js_regex",
]

LinearPattern = Any  # re2's compiled pattern: the `re.Pattern` methods, linear-time

_FLAGS = {re.IGNORECASE: "i", re.MULTILINE: "m", re.DOTALL: "s"}
_OPTIONS = re2.Options()
_OPTIONS.log_errors = False  # a bad caller pattern is an answer, not a stderr line


def compile_linear(pattern: str | bytes, flags: int = 0) -> LinearPattern:
    """`re.compile` for untrusted input, on RE2; `flags` may be re.I, re.M, re.S."""
    letters = "".join(letter for flag, letter in _FLAGS.items() if flags & flag)
    if flags & ~(re.IGNORECASE | re.MULTILINE | re.DOTALL):
        raise ValueError(f"unsupported regex flags: {flags!r}")
    if letters:
        prefix = f"(?{letters})"
        pattern = prefix.encode() + pattern if isinstance(pattern, bytes) else prefix + pattern
    return re2.compile(pattern, _OPTIONS)


def compile_user_pattern(pattern: str) -> LinearPattern:
    """Compile a caller's pattern on RE2; raises `ValueError` with RE2's reason
    for what it cannot run (lookaround, backreferences, bad syntax)."""
    try:
        re.compile(pattern)  # Python's syntax and messages; compiling never matches
    except re.error as exc:
        raise ValueError(str(exc)) from None
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as exc:
        reason = exc.args[0] if exc.args else exc
        text = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        raise ValueError(text) from None


_JS_SPECIAL = {ord(c): "\\" + c for c in ".*+?^${}()|[]\\/"}


def escape_js_regex(text: str) -> str:
    """Escape `text` for a JavaScript regex literal (jest/vitest `-t`)."""
    return text.translate(_JS_SPECIAL)
