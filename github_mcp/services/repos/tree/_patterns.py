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

Matching is linear-time by construction, whatever a pattern says (patterns
come from any committed `.gitignore` and from the caller): a segment glob is
split at its stars into fixed-length pieces, each a quantifier-free regex,
found leftmost in turn (O(name x pattern)); a directory part with `**` is
matched the same way one level up, with `**` splitting it into runs of
segment globs (O(segments x parts) segment matches). No regex with a
quantifier ever sees a path. `METER` counts the work.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from github_mcp.services.repos.tree._globs import (
    ANY_DIR,
    ANY_NAME,
    GLOB_CHARS,
    METER,
    MatchMeter,
    PathGlob,
    SegmentGlob,
    Unmatchable,
    bracket,
)

__all__ = [
    "ANY_DIR",
    "METER",
    "IgnoreRule",
    "MatchMeter",
    "PathGlob",
    "RuleSet",
    "SegmentGlob",
    "compile_rules",
]

_uids = itertools.count(1)


@dataclass(frozen=True, slots=True, eq=False)
class IgnoreRule:
    """One compiled pattern line.

    `head` is None for a name-only rule, `ANY_DIR`, a literal directory path
    relative to the rule set's base ('' = the base itself), or a `PathGlob`
    matched against that relative directory path. `last` is the `SegmentGlob`
    a child's name must match; `kind` and `literal` give a
    cheaper equivalent test: "any" (every name), "exact" (name == literal),
    "ext" (the name's last extension == literal), "extglob" (the last
    extension fully matches the regex in literal), "suffix", "prefix", or
    "glob" (only the regex will do).
    """

    pattern: str
    negated: bool
    dir_only: bool
    head: str | PathGlob | None
    last: SegmentGlob
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
        return bool(rel_dir) and head.matches(rel_dir)


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
            elif isinstance(r.head, PathGlob):
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
        pat = [r for r in self.pattern_heads if rel_dir and r.head.matches(rel_dir)]  # type: ignore[union-attr]
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
        last = ANY_NAME if last_glob is None else SegmentGlob.compile(last_glob)
    except Unmatchable:
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
    if not any(c in GLOB_CHARS for c in glob):
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
                cls, i = bracket(ext, i + 1)
                if re.fullmatch(cls, ".") is not None:
                    return None
                out.append(cls)
            else:
                out.append(re.escape(ext[i]))
                i += 1
    except Unmatchable:
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


def _split(body: str) -> tuple[str | PathGlob | None, str | None]:
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
            raise Unmatchable
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
    if not any(c in GLOB_CHARS for s in head_segs for c in s):
        return "/".join(head_segs), last
    return PathGlob.compile(head_segs), last
