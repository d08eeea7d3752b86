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


class MatchMeter:
    """Units of matching work done so far: one per quantifier-free piece tried
    and one per run of segment globs tried at a place in a path. Each unit costs
    at most O(name length x piece length), so steps bound the time taken."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = 0


METER = MatchMeter()


class _Unmatchable(Exception):
    """The pattern is malformed; git's wildmatch aborts and the line never matches."""


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
        last = _ANY_NAME if last_glob is None else SegmentGlob.compile(last_glob)
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
    return PathGlob.compile(head_segs), last


class SegmentGlob:
    """One path segment glob (git wildmatch, no '/'), matched in linear time.

    Stars split the glob into pieces of fixed length (literals, '?', bracket
    expressions), each compiled to a regex with no quantifier. The first piece
    is anchored at the start of the name and the last at its end; a middle
    piece is taken at its leftmost occurrence after the previous one, which is
    enough because a star matches any run of characters within a segment.
    """

    __slots__ = ("_first", "_last", "_middle", "_min_len", "_whole", "source")

    def __init__(self, source: str, pieces: list[list[str]], starred: bool) -> None:
        self.source = source
        compiled = [(re.compile("".join(p), re.DOTALL), len(p)) for p in pieces]
        self._min_len = sum(n for _, n in compiled)
        self._whole = None if starred else compiled[0][0]
        self._first = compiled[0] if starred and compiled[0][1] else None
        self._last = compiled[-1] if starred and compiled[-1][1] else None
        self._middle = tuple(c for c in compiled[1:-1] if c[1]) if starred else ()

    @staticmethod
    def compile(glob: str) -> SegmentGlob:
        """Raises `_Unmatchable` for a glob git's wildmatch would never match."""
        return _compile_segment(glob)

    def matches(self, name: str) -> bool:
        meter = METER
        n = len(name)
        if n < self._min_len:
            return False
        if self._whole is not None:
            meter.steps += 1
            return self._whole.fullmatch(name) is not None
        pos, end = 0, n
        if self._first is not None:
            meter.steps += 1
            rx, size = self._first
            if rx.match(name, 0, size) is None:
                return False
            pos = size
        if self._last is not None:
            meter.steps += 1
            rx, size = self._last
            end = n - size
            if rx.match(name, end) is None:
                return False
        for rx, _size in self._middle:
            meter.steps += 1
            m = rx.search(name, pos, end)
            if m is None:
                return False
            pos = m.end()
        return True

    def __repr__(self) -> str:
        return f"SegmentGlob({self.source!r})"


_segment_cache: dict[str, SegmentGlob] = {}


def _compile_segment(glob: str) -> SegmentGlob:
    hit = _segment_cache.get(glob)
    if hit is not None:
        return hit
    pieces: list[list[str]] = [[]]
    starred = False
    i, n = 0, len(glob)
    while i < n:
        c = glob[i]
        i += 1
        if c == "\\":
            if i >= n:
                raise _Unmatchable
            pieces[-1].append(re.escape(glob[i]))
            i += 1
        elif c == "*":
            while i < n and glob[i] == "*":
                i += 1
            starred = True
            pieces.append([])
        elif c == "?":
            pieces[-1].append("[^/]")
        elif c == "[":
            cls, i = _bracket(glob, i)
            pieces[-1].append(cls)
        else:
            pieces[-1].append(re.escape(c))
    compiled = SegmentGlob(glob, pieces, starred)
    if len(_segment_cache) < 4096:
        _segment_cache[glob] = compiled
    return compiled


def _run_matches(run: tuple[SegmentGlob, ...], segs: list[str], at: int) -> bool:
    METER.steps += 1
    return all(glob.matches(segs[at + k]) for k, glob in enumerate(run))


# A rule ending in "/**" matches any non-empty name below its head.
_ANY_NAME = SegmentGlob("*", [[], []], True)


class PathGlob:
    """A '/'-separated glob of segment globs and `**` (zero or more whole
    segments), matched against a relative directory path the way
    `SegmentGlob` matches a name, one level up: the `**` split the parts into
    runs of segment globs; the first run is anchored at the first segment,
    the last at the last one, and each middle run is taken at its leftmost
    place. A match costs at most segments x parts segment matches."""

    __slots__ = ("_first", "_last", "_middle", "_min_segs", "_whole", "source")

    def __init__(self, source: str, runs: list[tuple[SegmentGlob, ...]]) -> None:
        self.source = source
        starred = len(runs) > 1
        self._min_segs = sum(len(r) for r in runs)
        self._whole = None if starred else runs[0]
        self._first = runs[0] if starred else ()
        self._last = runs[-1] if starred else ()
        self._middle = tuple(r for r in runs[1:-1] if r) if starred else ()

    @staticmethod
    def compile(segs: list[str]) -> PathGlob:
        runs: list[list[SegmentGlob]] = [[]]
        for seg in segs:
            if seg == ANY_DIR:
                runs.append([])
            else:
                runs[-1].append(SegmentGlob.compile(seg))
        return PathGlob("/".join(segs), [tuple(r) for r in runs])

    def matches(self, path: str) -> bool:
        segs = path.split("/")
        n = len(segs)
        if n < self._min_segs:
            return False
        if self._whole is not None:
            return n == len(self._whole) and _run_matches(self._whole, segs, 0)
        pos, end = len(self._first), n - len(self._last)
        if not _run_matches(self._first, segs, 0) or not _run_matches(self._last, segs, end):
            return False
        for run in self._middle:
            size = len(run)
            while pos + size <= end and not _run_matches(run, segs, pos):
                pos += 1
            if pos + size > end:
                return False
            pos += size
        return True

    def __repr__(self) -> str:
        return f"PathGlob({self.source!r})"


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
