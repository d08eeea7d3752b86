"""Gitignore pattern compilation with git's own matching semantics.

Each pattern line becomes an `IgnoreRule` that matches *one* path exactly (a
file, or a directory), the way git's `wildmatch` does; a directory excluded by a
rule excludes everything below it because the filter walks directories top
down (see `tree_filter`). pathspec 1.1.1's `GitIgnoreSpec` matches descendants
through a "directory marker" instead, and with negations that re-includes files
under an excluded directory (cpburnz/python-pathspec#129) and treats `dir/**`
as matching `dir` itself (#137). Git forbids the first and does not do the
second, so the per-path matcher lives here. The tests check it against real
git (`git add -A` on random trees) and, for negation-free rule sets, against
pathspec.

A rule is split into a *head* (the directory part, matched once per directory)
and a *last* segment (matched against a child's name). Rules without a slash
(`*.log`, `build/`, `**/tmp`) have no head and apply at any depth below the
`.gitignore` that holds them.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

__all__ = ["ANY_DIR", "IgnoreRule", "RuleSet", "compile_rules"]

# Marks a head that matches every directory at or below the rule set's base.
ANY_DIR = "**"

_GLOB_CHARS = frozenset("*?[\\")

_POSIX_CLASSES = {
    "alnum": "a-zA-Z0-9",
    "alpha": "a-zA-Z",
    "blank": " \\t",
    "cntrl": "\\x00-\\x1f\\x7f",
    "digit": "0-9",
    "graph": "!-~",
    "lower": "a-z",
    "print": " -~",
    "punct": "!-/:-@\\[-`{-~",
    "space": " \\t\\n\\r\\x0b\\x0c",
    "upper": "A-Z",
    "xdigit": "0-9A-Fa-f",
}

_uids = itertools.count(1)


class _Unmatchable(Exception):
    """The pattern is malformed; git's wildmatch aborts and the line never matches."""


@dataclass(frozen=True, slots=True, eq=False)
class IgnoreRule:
    """One compiled pattern line.

    `head` is None for a name-only rule, `ANY_DIR`, a literal directory path
    relative to the rule set's base ('' = the base itself), or a compiled regex
    matched with `fullmatch` against that relative directory path. `last` is the
    regex source a child's name must fully match; `kind` and `literal` give a
    cheaper equivalent test: "any" (every name), "exact" (name == literal),
    "ext" (the name's last extension == literal), "extglob" (the last
    extension fully matches the regex in literal), "suffix", "prefix", or
    "glob" (only the regex will do).
    """

    pattern: str
    negated: bool
    dir_only: bool
    head: str | re.Pattern[str] | None
    last: str
    kind: str  # how `last` can be tested without a regex: see `_classify`
    literal: str
    source: str
    line: int
    uid: int = field(default_factory=lambda: next(_uids))

    def head_matches(self, rel_dir: str) -> bool:
        head = self.head
        if head is None or head == ANY_DIR:
            return True
        if isinstance(head, str):
            return head == rel_dir
        return bool(rel_dir) and head.fullmatch(rel_dir) is not None


@dataclass(frozen=True, slots=True, eq=False)
class RuleSet:
    """The rules of one pattern source, anchored at directory `base`."""

    base: str
    source: str
    rules: tuple[IgnoreRule, ...]
    uid: int = field(default_factory=lambda: next(_uids))
    name_rules: tuple[IgnoreRule, ...] = ()
    literal_heads: dict[str, tuple[IgnoreRule, ...]] = field(default_factory=dict)
    pattern_heads: tuple[IgnoreRule, ...] = ()

    @classmethod
    def build(cls, base: str, source: str, rules: list[IgnoreRule]) -> RuleSet:
        name_rules = tuple(r for r in rules if r.head is None or r.head == ANY_DIR)
        literal: dict[str, list[IgnoreRule]] = {}
        patterned: list[IgnoreRule] = []
        for r in rules:
            if isinstance(r.head, str) and r.head != ANY_DIR:
                literal.setdefault(r.head, []).append(r)
            elif isinstance(r.head, re.Pattern):
                patterned.append(r)
        return cls(
            base=base,
            source=source,
            rules=tuple(rules),
            name_rules=name_rules,
            literal_heads={k: tuple(v) for k, v in literal.items()},
            pattern_heads=tuple(patterned),
        )

    def rules_for_dir(self, rel_dir: str) -> tuple[IgnoreRule, ...]:
        """Rules that can match a child of `rel_dir`, in file order."""
        lit = self.literal_heads.get(rel_dir, ())
        # A patterned head has at least one non-"**" segment, so never matches
        # the base itself ('*' would match the empty string as a regex).
        pat = [r for r in self.pattern_heads if rel_dir and r.head.fullmatch(rel_dir)]  # type: ignore[union-attr]
        if not lit and not pat:
            return self.name_rules
        picked = {r.uid for r in lit}
        picked.update(r.uid for r in pat)
        picked.update(r.uid for r in self.name_rules)
        return tuple(r for r in self.rules if r.uid in picked)


def compile_rules(text: str, *, base: str = "", source: str = "") -> RuleSet:
    """Compile a .gitignore body whose patterns are relative to directory `base`."""
    if text.startswith("\ufeff"):
        text = text[1:]
    rules: list[IgnoreRule] = []
    for lineno, raw in enumerate(text.split("\n"), start=1):
        rule = compile_line(raw, source=source, line=lineno)
        if rule is not None:
            rules.append(rule)
    return RuleSet.build(base, source, rules)


def compile_line(raw: str, *, source: str = "", line: int = 0) -> IgnoreRule | None:
    """Compile one line; None for blanks, comments and lines git would never match."""
    if raw.endswith("\r"):
        raw = raw[:-1]
    if not raw or raw.startswith("#"):
        return None
    text = _trim_trailing_spaces(raw)
    negated = text.startswith("!")
    body = text[1:] if negated else text
    dir_only = body.endswith("/")
    if dir_only:
        body = body[:-1]
    if not body:
        return None
    try:
        head, last_glob = _split(body)
        last = ".+" if last_glob is None else _segment_regex(last_glob)
    except _Unmatchable:
        return None
    kind, literal = _classify(last_glob)
    return IgnoreRule(
        pattern=text,
        negated=negated,
        dir_only=dir_only,
        head=head,
        last=last,
        kind=kind,
        literal=literal,
        source=source,
        line=line,
    )


def _classify(glob: str | None) -> tuple[str, str]:
    if glob is None or glob.strip("*") == "":
        return "any", ""
    if not any(c in _GLOB_CHARS for c in glob):
        return "exact", glob
    if glob.startswith("*.") and len(glob) > 2:
        ext_rx = _extension_regex(glob[2:])
        if ext_rx is not None:
            return ("ext", glob[2:]) if ext_rx == re.escape(glob[2:]) else ("extglob", ext_rx)
    if "\\" in glob or "?" in glob or "[" in glob:
        return "glob", ""
    if glob.startswith("*") and "*" not in glob[1:]:
        rest = glob[1:]
        if rest.startswith(".") and "." not in rest[1:] and len(rest) > 1:
            return "ext", rest[1:]
        return "suffix", rest
    if glob.endswith("*") and "*" not in glob[:-1]:
        return "prefix", glob[:-1]
    return "glob", ""


def _extension_regex(ext: str) -> str | None:
    """Regex for `ext` when "*.<ext>" depends only on a name's last extension:
    no '*', '?', '.', or escape, and no bracket that could match a dot."""
    if any(c in "*?.\\/" for c in ext):
        return None
    out: list[str] = []
    i = 0
    try:
        while i < len(ext):
            if ext[i] == "[":
                cls, i = _bracket(ext, i + 1)
                if re.fullmatch(cls, ".") is not None:
                    return None
                out.append(cls)
            else:
                out.append(re.escape(ext[i]))
                i += 1
    except _Unmatchable:
        return None
    return "".join(out)


def _trim_trailing_spaces(s: str) -> str:
    # git's trim_trailing_spaces(): unescaped trailing spaces go, "\ " stays.
    last_space = None
    i, n = 0, len(s)
    while i < n:
        c = s[i]
        if c == " ":
            if last_space is None:
                last_space = i
        elif c == "\\":
            i += 1
            if i >= n:
                return s
            last_space = None
        else:
            last_space = None
        i += 1
    return s if last_space is None else s[:last_space]


def _split(body: str) -> tuple[str | re.Pattern[str] | None, str | None]:
    """Split into (head, glob of the last segment); a None glob matches any name."""
    if "/" not in body:
        # No separator: match the name at any depth; '**' is a plain '*' here.
        return None, body
    segs = body.split("/")
    if segs[0] == "":
        segs = segs[1:]
    collapsed: list[str] = []
    for seg in segs:
        if seg == "":
            # "a//b" needs a literal "//", which a path never contains.
            raise _Unmatchable
        if seg == "**" and collapsed and collapsed[-1] == "**":
            continue
        collapsed.append(seg)
    segs = collapsed
    last: str | None
    if segs[-1] == "**":
        # "x/**": everything inside x at any depth, but not x itself.
        head_segs, last = [*segs[:-1], "**"], None
    else:
        head_segs, last = segs[:-1], segs[-1]
    if all(s == "**" for s in head_segs):
        return (ANY_DIR if head_segs else ""), last
    if not any(c in _GLOB_CHARS for s in head_segs for c in s):
        return "/".join(head_segs), last
    return re.compile(_join_regex(head_segs), re.DOTALL), last


def _join_regex(segs: list[str]) -> str:
    out: list[str] = []
    need_slash = False
    end = len(segs) - 1
    for i, seg in enumerate(segs):
        if seg == "**":
            if i == 0:
                out.append("(?:.*/)?")
                need_slash = False
            else:
                out.append("(?:/.*)?")
                need_slash = i < end
            continue
        if need_slash:
            out.append("/")
        out.append(_segment_regex(seg))
        need_slash = True
    return "".join(out)


def _segment_regex(seg: str) -> str:
    """Translate one path segment glob (git wildmatch) into a regex source."""
    out: list[str] = []
    i, n = 0, len(seg)
    while i < n:
        c = seg[i]
        i += 1
        if c == "\\":
            if i >= n:
                raise _Unmatchable
            out.append(re.escape(seg[i]))
            i += 1
        elif c == "*":
            while i < n and seg[i] == "*":
                i += 1
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            cls, i = _bracket(seg, i)
            out.append(cls)
        else:
            out.append(re.escape(c))
    return "".join(out)


def _bracket(seg: str, i: int) -> tuple[str, int]:
    """Translate a bracket expression starting after '['; returns (regex, next index)."""
    n = len(seg)
    negate = False
    if i < n and seg[i] in "!^":
        negate = True
        i += 1
    items: list[str] = []
    prev: str | None = None
    first = True
    while True:
        if i >= n:
            raise _Unmatchable
        c = seg[i]
        if c == "]" and not first:
            i += 1
            break
        first = False
        if c == "\\":
            i += 1
            if i >= n:
                raise _Unmatchable
            c = seg[i]
            items.append(re.escape(c))
            prev = c
            i += 1
        elif c == "-" and prev is not None and i + 1 < n and seg[i + 1] != "]":
            i += 1
            hi = seg[i]
            if hi == "\\":
                i += 1
                if i >= n:
                    raise _Unmatchable
                hi = seg[i]
            items.pop()
            if prev <= hi:
                items.append(f"{re.escape(prev)}-{re.escape(hi)}")
            prev = None
            i += 1
        elif c == "[" and i + 1 < n and seg[i + 1] == ":":
            end = seg.find("]", i + 2)
            if end < 0:
                raise _Unmatchable
            if seg[end - 1] != ":" or end - 1 < i + 2:
                # Not a "[:class:]"; '[' is an ordinary member.
                items.append(re.escape("["))
                prev = "["
                i += 1
                continue
            name = seg[i + 2 : end - 1]
            if name not in _POSIX_CLASSES:
                raise _Unmatchable
            items.append(_POSIX_CLASSES[name])
            prev = None
            i = end + 1
        else:
            items.append(re.escape(c))
            prev = c
            i += 1
    body = "".join(items)
    if negate:
        return f"[^/{body}]", i
    if not body:
        return "(?!)", i
    return f"(?:(?!/)[{body}])", i
