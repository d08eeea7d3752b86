"""One validator and one canonical spelling for every branch, tag and ref argument.

Every tool argument that names a branch or a ref goes through `canonical_ref`
(pydantic, via params.Ref/Branch) and again through `canonicalize_args` in the
registry, before the allow-list, the effective ref and the write gate. So the
gate, the audit log and the GitHub client all see the same, single spelling.

The rules are those of `git check-ref-format`, plus a few of our own:
- refused: empty names and segments (`//`), a leading or trailing `/`, a segment
  that starts with `.` (so `.` and `..` segments), a trailing `.`, `..` anywhere,
  a segment ending in `.lock`, `@{`, a lone `@`, the characters `~ ^ : ? * [ \\`,
  whitespace, control characters, and every invisible or direction-changing
  character (the same set stripped from issue text);
- ours: a leading `-` (it reads as an option), shell metacharacters, `%` and `#`
  (so an encoded `%2e` segment or a URL fragment never reaches a URL), more than
  255 characters;
- a branch argument spelled `refs/heads/X` is canonicalised to `X`; any other
  `refs/...` spelling is refused for branches, as are `HEAD`-like names, which
  GitHub resolves to another branch. Ref arguments (branch, tag or SHA) also accept
  `refs/tags/X`, kept as given.

`lookalike_problem` adds the confusable check for branch names that are written to:
a word mixing scripts (`mаin` with a Cyrillic `а`) or a name whose look-alike
skeleton equals a protected branch is refused.
"""

from __future__ import annotations

import fnmatch
import functools
import re
import unicodedata
from collections.abc import Callable, Iterable
from typing import Any

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import strip_invisible

MAX_REF_CHARS = 255
HEADS_PREFIX = "refs/heads/"
TAGS_PREFIX = "refs/tags/"
# git check-ref-format's forbidden characters, plus shell metacharacters, '%' and '#'.
_FORBIDDEN_CHARS = frozenset("~^:?*[\\;|&$`<>(){}'\"!%#")
# Names GitHub resolves to some other ref when given where a branch is expected.
_SYMBOLIC = re.compile(r"^(?:[A-Z_]*HEAD)$")

# The same rules as a JSON-schema pattern (ECMA-262 and Python `re` alike), so a client
# sees them before calling. The validator stays the authority: the pattern lists only
# the Basic Multilingual Plane's invisible characters.
_INVISIBLE_BMP = (
    "\\u00ad\\u034f\\u061c\\u115f\\u1160\\u17b4\\u17b5\\u180b-\\u180f\\u200b-\\u200f"
    "\\u2028-\\u202e\\u2060-\\u206f\\u3164\\ufe00-\\ufe0f\\ufeff\\uffa0\\ufff0-\\ufffb"
)
REF_SCHEMA_PATTERN = (
    "^(?![-/.])(?![\\s\\S]*\\s)"
    "(?![\\s\\S]*(?:\\.\\.|//|@\\{|/\\.|\\.lock(?:/|$)|[/.]$))"
    "(?!@$)"
    f"[^\\x00-\\x20\\x7f-\\x9f~^:?*\\[\\\\;|&$`<>(){{}}'\"!%#\\s{_INVISIBLE_BMP}]+$"
)


def ref_problem(name: str) -> str | None:
    """Why `name` is not an acceptable ref name, or None if it is."""
    if not name:
        return "it is empty"
    if len(name) > MAX_REF_CHARS:
        return f"it is longer than {MAX_REF_CHARS} characters"
    return _character_problem(name) or _shape_problem(name) or _segment_problem(name)


def _character_problem(name: str) -> str | None:
    if name.isascii() and name.isprintable():  # most names: no control character possible
        if " " in name:
            return "it contains whitespace or control characters"
    elif strip_invisible(name) != name:
        return "it contains invisible, direction-changing or control characters"
    elif any(ch.isspace() or unicodedata.category(ch) in ("Cc", "Cf", "Zl", "Zp") for ch in name):
        return "it contains whitespace or control characters"
    found = sorted(set(name) & _FORBIDDEN_CHARS)
    return f"it contains {' '.join(found)!r}" if found else None


# git check-ref-format's rules on the whole name, checked in this order.
_SHAPE_RULES: tuple[tuple[Callable[[str], bool], str], ...] = (
    (lambda n: n == "@", "'@' alone is not a ref"),
    (lambda n: n.startswith("-"), "it starts with '-'"),
    (lambda n: n.startswith("/") or n.endswith("/"), "it starts or ends with '/'"),
    (lambda n: "@{" in n, "it contains '@{'"),
    (lambda n: ".." in n, "it contains '..'"),
    (lambda n: n.endswith("."), "it ends with '.'"),
)


def _shape_problem(name: str) -> str | None:
    return next((why for broken, why in _SHAPE_RULES if broken(name)), None)


def _segment_problem(name: str) -> str | None:
    for segment in name.split("/"):
        if not segment:
            return "it has an empty segment ('//')"
        if segment.startswith("."):
            return "a segment starts with '.' (no '.' or '..' segments)"
        if segment.endswith(".lock"):
            return "a segment ends with '.lock'"
    return None


def canonical_ref(value: str, *, branch: bool) -> str:
    """The one spelling of a branch (`branch=True`) or of any ref; raises ValueError."""
    if not isinstance(value, str):
        raise ValueError("must be a string")
    problem = ref_problem(value)
    if problem:
        raise ValueError(f"{'branch' if branch else 'ref'} {value[:80]!r} is invalid: {problem}")
    name = value
    if name.startswith(HEADS_PREFIX):
        name = name[len(HEADS_PREFIX) :]
    elif name.startswith(TAGS_PREFIX) and not branch:
        return name
    if name.startswith("refs/"):
        raise ValueError(
            f"{value[:80]!r}: give a branch by its short name (a 'refs/...' spelling is only "
            "accepted as refs/heads/NAME" + ("" if branch else " or refs/tags/NAME") + ")"
        )
    if branch and _SYMBOLIC.match(name):
        raise ValueError(f"{name!r} is not a branch name")
    return name


def canonical_branch(value: str) -> str:
    return canonical_ref(value, branch=True)


def canonical_any_ref(value: str) -> str:
    return canonical_ref(value, branch=False)


def require_canonical(value: Any, *, branch: bool, arg: str) -> str:
    """`canonical_ref` for callers outside pydantic: raises invalid_input."""
    try:
        return canonical_ref(value, branch=branch)
    except ValueError as exc:
        raise invalid_input(
            f"{arg}: {exc}",
            hint="Use a plain branch name like 'feature/x', a tag, or a commit SHA.",
        ) from None


_PULL_REF = re.compile(r"^refs/pull/[1-9][0-9]{0,9}/(?:head|merge)$")


def require_remote_ref(value: Any) -> str:
    """A full remote ref the server itself fetches: refs/heads/NAME, refs/tags/NAME, or a pull
    request's refs/pull/N/head (or /merge). Raises invalid_input."""
    if isinstance(value, str) and _PULL_REF.match(value):
        return value
    if isinstance(value, str) and value.startswith((HEADS_PREFIX, TAGS_PREFIX)):
        name = value.split("/", 2)[2]
        problem = ref_problem(name) or ref_problem(value)
        if problem is None:
            return value
    raise invalid_input(
        f"remote ref {str(value)[:80]!r} is not a full branch, tag or pull ref",
        hint="Use refs/heads/NAME, refs/tags/NAME or refs/pull/N/head.",
    )


def write_target(value: str, arg: str) -> str:
    """A branch a write goes to: canonical, and never a tag or a symbolic name."""
    name = require_canonical(value, branch=False, arg=arg)
    if name.startswith("refs/") or _SYMBOLIC.match(name):
        raise invalid_input(
            f"{arg}: {name!r} is not a branch; writes go to branches",
            hint="Name the branch by its short name.",
        )
    return name


# -- look-alikes ----------------------------------------------------------------


@functools.cache
def _ascii_lookalikes() -> dict[str, str]:
    """Each character whose confusable set holds an ASCII letter or digit, mapped to it."""
    from confusable_homoglyphs.confusables import confusables_data

    table: dict[str, str] = {}
    for char, glyphs in confusables_data.items():
        if len(char) != 1 or char.isascii():
            continue
        for glyph in glyphs:
            if len(glyph["c"]) == 1 and glyph["c"].isascii() and glyph["c"].isalnum():
                table[char] = glyph["c"]
                break
    return table


def skeleton(name: str) -> str:
    """A look-alike skeleton: NFKC, confusables mapped to ASCII, case-folded."""
    table = _ascii_lookalikes()
    folded = unicodedata.normalize("NFKC", name)
    return "".join(table.get(ch, ch) for ch in folded).casefold()


def _mixed_script_word(name: str) -> str | None:
    from confusable_homoglyphs.categories import unique_aliases

    words: list[str] = re.findall(r"[^\W\d_]+", name)
    for word in words:
        if word.isascii():
            continue
        if len(unique_aliases(word) - {"COMMON", "INHERITED"}) > 1:
            return word
    return None


def lookalike_problem(name: str, protected: Iterable[str], globs: Iterable[str]) -> str | None:
    """Why a branch name to write to is a deceptive look-alike, or None.

    Plain ASCII names are never look-alikes; others are refused when a word mixes
    scripts or when their skeleton is a protected branch or matches a protected glob."""
    if name.isascii():
        return None
    word = _mixed_script_word(name)
    if word:
        return f"the word {word!r} mixes writing systems (a look-alike of another name)"
    shape = skeleton(name)
    for other in protected:
        if other and shape == skeleton(other):
            return f"it looks like the protected branch {other!r}"
    for glob in globs:
        if fnmatch.fnmatchcase(shape, glob.casefold()):
            return f"it looks like a branch matching the protected pattern {glob!r}"
    return None


def lookalike_warning(name: str, protected: Iterable[str] = ()) -> str | None:
    """A warning for the approval page about a name a human reads (a path, a branch):
    a word mixing scripts, or letters from another script that read as a different
    (ASCII or protected) name. None for plain ASCII names."""
    if name.isascii():
        return None
    word = _mixed_script_word(name)
    if word:
        return f"{name!r}: the word {word!r} mixes writing systems"
    shape = skeleton(name)
    for other in protected:
        if other and shape == skeleton(other) and name != other:
            return f"{name!r} looks like the protected branch {other!r}"
    if shape.isascii() and shape != name.casefold():
        return f"{name!r} is written in other scripts but reads as {shape!r}"
    return None
