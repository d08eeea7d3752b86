"""Globs that match in linear time, whatever they say: a segment glob split at its stars
into quantifier-free pieces found leftmost in turn, and a path glob whose `**` splits it
into runs of segment globs. `METER` counts the work (see `_patterns` for the gitignore
rules built on them)."""

from __future__ import annotations

import re

# Marks a head that matches every directory at or below the rule set's base.
ANY_DIR = "**"

GLOB_CHARS = frozenset("*?[\\")

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


class MatchMeter:
    """Units of matching work done so far: one per quantifier-free piece tried
    and one per run of segment globs tried at a place in a path. Each unit costs
    at most O(name length x piece length), so steps bound the time taken."""

    __slots__ = ("steps",)

    def __init__(self) -> None:
        self.steps = 0


METER = MatchMeter()


class Unmatchable(Exception):
    """The pattern is malformed; git's wildmatch aborts and the line never matches."""


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
        """Raises `Unmatchable` for a glob git's wildmatch would never match."""
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
                raise Unmatchable
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
            cls, i = bracket(glob, i)
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
ANY_NAME = SegmentGlob("*", [[], []], True)


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


def bracket(seg: str, i: int) -> tuple[str, int]:
    """Translate a bracket expression starting after '['; returns (regex, next index)."""
    n = len(seg)
    negate = i < n and seg[i] in "!^"
    if negate:
        i += 1
    items: list[str] = []
    prev: str | None = None
    first = True
    while True:
        if i >= n:
            raise Unmatchable
        if seg[i] == "]" and not first:
            return _bracket_regex("".join(items), negate), i + 1
        first = False
        prev, i = _bracket_member(seg, i, prev, items)


def _bracket_regex(body: str, negate: bool) -> str:
    if negate:
        return f"[^/{body}]"
    if not body:
        return "(?!)"
    return f"(?:(?!/)[{body}])"


def _bracket_member(seg: str, i: int, prev: str | None, items: list[str]) -> tuple[str | None, int]:
    """Add the member at seg[i] to items; returns (what a '-' may range from, next index)."""
    c = seg[i]
    if c == "\\":
        c, i = _escaped(seg, i)
        items.append(re.escape(c))
        return c, i
    if c == "-" and prev is not None and i + 1 < len(seg) and seg[i + 1] != "]":
        hi, i = _escaped(seg, i + 1) if seg[i + 1] == "\\" else (seg[i + 1], i + 2)
        items.pop()
        if prev <= hi:
            items.append(f"{re.escape(prev)}-{re.escape(hi)}")
        return None, i
    if c == "[" and i + 1 < len(seg) and seg[i + 1] == ":":
        return _posix_class(seg, i, items)
    items.append(re.escape(c))
    return c, i + 1


def _escaped(seg: str, i: int) -> tuple[str, int]:
    """The character a backslash at seg[i] escapes, and the index after it."""
    if i + 1 >= len(seg):
        raise Unmatchable
    return seg[i + 1], i + 2


def _posix_class(seg: str, i: int, items: list[str]) -> tuple[str | None, int]:
    """A "[:class:]" at seg[i]; a '[' that opens none is an ordinary member."""
    end = seg.find("]", i + 2)
    if end < 0:
        raise Unmatchable
    if seg[end - 1] != ":" or end - 1 < i + 2:
        items.append(re.escape("["))
        return "[", i + 1
    name = seg[i + 2 : end - 1]
    if name not in _POSIX_CLASSES:
        raise Unmatchable
    items.append(_POSIX_CLASSES[name])
    return None, end + 1
