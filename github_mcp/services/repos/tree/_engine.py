"""The matching engine behind `filter_entries`: per-directory state, rule
"programs" and memoised verdicts.

Each directory's state is computed once, top down, from its parent's: whether
the directory itself is excluded (then every blob below it is, and as in git
nothing below can be re-included), and, per layer, the program of rules that
can decide its children. A rule's directory part is checked once per
directory, so a child's verdict depends only on its name and the programs.
Directories with the same programs share a `_Decider`: a name no name-specific
rule can match is decided by its extension, memoised per extension; the rest
are memoised per name and answered by dict lookups (exact name, extension,
literal suffix or prefix), with a linear-time `SegmentGlob` only for real
globs.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Mapping, Sequence
from typing import Any

from github_mcp.services.repos.tree._model import PLATFORM_PATTERNS, ExcludedDir, Reason
from github_mcp.services.repos.tree._patterns import (
    IgnoreRule,
    RuleSet,
    SegmentGlob,
    compile_line,
    compile_rules,
)

__all__ = ["SIZE_VERDICT", "DirState", "Engine", "compile_gitignores", "user_rules"]


class _Miss(enum.Enum):
    """Marks a memo miss (None is a cached verdict); one member, so `is` narrows the type."""

    MISS = 0


_MISS = _Miss.MISS
_NONE = 1 << 30


class _Tables:
    """Name matcher for an ordered rule list (rank 0 = highest precedence).

    With `fold`, extensions compare case-insensitively (platform layer).
    """

    __slots__ = ("any", "exact", "ext", "ext_globs", "fold", "globs", "prefix", "rules", "suffix")

    def __init__(self, rules: tuple[IgnoreRule, ...], fold: bool) -> None:
        self.rules = rules
        self.fold = fold
        self.any = _NONE
        self.exact: dict[str, int] = {}
        self.ext: dict[str, int] = {}
        suffix: dict[int, dict[str, int]] = {}
        prefix: dict[int, dict[str, int]] = {}
        ext_globs: list[tuple[int, re.Pattern[str]]] = []
        globs: list[tuple[int, SegmentGlob]] = []
        for rank, r in enumerate(rules):
            kind, lit = r.kind, r.literal
            if kind == "any":
                self.any = min(self.any, rank)
            elif kind == "exact":
                self.exact.setdefault(lit, rank)
            elif kind == "ext":
                self.ext.setdefault(lit.lower() if fold else lit, rank)
            elif kind == "extglob":
                ext_globs.append((rank, re.compile(lit, re.IGNORECASE if fold else 0)))
            elif kind == "suffix":
                suffix.setdefault(len(lit), {}).setdefault(lit, rank)
            elif kind == "prefix":
                prefix.setdefault(len(lit), {}).setdefault(lit, rank)
            else:
                globs.append((rank, r.last))
        self.suffix = tuple(suffix.items())
        self.prefix = tuple(prefix.items())
        self.ext_globs = tuple(ext_globs)
        self.globs = tuple(globs)

    def ext_rank(self, ext: str | None) -> int:
        """Best rank among the rules that look only at the extension."""
        best = self.any
        if ext is None:
            return best
        if self.fold:
            ext = ext.lower()
        r = self.ext.get(ext, _NONE)
        if r < best:
            best = r
        for rank, rx in self.ext_globs:
            if rank >= best:
                break
            if rx.fullmatch(ext) is not None:
                return rank
        return best

    def name_rank(self, name: str, best: int) -> int:
        """Improve `best` with the rules that look at the whole name."""
        r = self.exact.get(name, _NONE)
        if r < best:
            best = r
        for n, table in self.suffix:
            r = table.get(name[-n:] if n else "", _NONE)
            if r < best:
                best = r
        for n, table in self.prefix:
            r = table.get(name[:n], _NONE)
            if r < best:
                best = r
        for rank, glob in self.globs:
            if rank >= best:
                break
            if glob.matches(name):
                return rank
        return best

    def match(self, name: str) -> IgnoreRule | None:
        dot = name.rfind(".")
        best = self.name_rank(name, self.ext_rank(name[dot + 1 :] if dot >= 0 else None))
        return None if best == _NONE else self.rules[best]


class _Program:
    """The rules that can decide the children of one directory, for one layer,
    highest precedence first (deeper .gitignore first, later lines first)."""

    __slots__ = ("_dirs", "_files", "fold", "rules")

    def __init__(self, rules: list[IgnoreRule], fold: bool = False) -> None:
        self.rules = tuple(rules)
        self.fold = fold
        self._files: _Tables | None = None
        self._dirs: _Tables | None = None

    def tables(self, is_dir: bool) -> _Tables:
        if is_dir:
            if self._dirs is None:
                self._dirs = _Tables(self.rules, self.fold)
            return self._dirs
        if self._files is None:
            self._files = _Tables(tuple(r for r in self.rules if not r.dir_only), self.fold)
        return self._files


# (reason, pattern, source): the fields an ExcludedItem takes from its rule.
_Verdict = tuple[Reason, str | None, str | None]
SIZE_VERDICT: _Verdict = ("size", None, None)


def _verdict(reason: Reason, rule: IgnoreRule) -> _Verdict:
    return (reason, rule.pattern, rule.source or None)


class _Decider:
    """Verdicts for the children of every directory that has these programs.

    A name that no name-specific rule (exact, prefix, suffix, glob) can match
    is decided by its extension alone, memoised per extension; other names,
    and every name once the programs hold a glob, are memoised per name.
    """

    __slots__ = (
        "dir_memo",
        "ext_memo",
        "file_tables",
        "globs",
        "name_memo",
        "prefixes",
        "progs",
        "special",
        "suffixes",
    )

    def __init__(self, progs: tuple[_Program, ...]) -> None:
        self.progs = progs
        tables = tuple(p.tables(False) for p in progs)
        self.file_tables = tables
        self.special = frozenset(k for t in tables for k in t.exact)
        self.prefixes = tuple({k for t in tables for _, tab in t.prefix for k in tab})
        self.suffixes = tuple({k for t in tables for _, tab in t.suffix for k in tab})
        # Distinct globs only: several directories' programs share rules.
        self.globs = tuple({id(g): g for t in tables for _, g in t.globs}.values())
        self.ext_memo: dict[str | None, _Verdict | None] = {}
        self.name_memo: dict[str, _Verdict | None] = {}
        self.dir_memo: dict[str, _Verdict | None] = {}

    def file_verdict(self, name: str) -> _Verdict | None:
        v = self.name_memo.get(name, _MISS)
        if v is not _MISS:
            return v
        if (
            name in self.special
            or (self.prefixes and name.startswith(self.prefixes))
            or (self.suffixes and name.endswith(self.suffixes))
        ):
            v = self.name_memo[name] = _decide(self.file_tables, name)
            return v
        if self.globs:
            # The glob test is the costly part: with globs, memoise every name.
            if any(g.matches(name) for g in self.globs):
                v = _decide(self.file_tables, name)
            else:
                v = self._ext_verdict(name)
            self.name_memo[name] = v
            return v
        return self._ext_verdict(name)

    def _ext_verdict(self, name: str) -> _Verdict | None:
        dot = name.rfind(".")
        ext = name[dot + 1 :] if dot >= 0 else None
        v = self.ext_memo.get(ext, _MISS)
        if v is _MISS:
            v = self.ext_memo[ext] = _decide_ext(self.file_tables, ext)
        return v

    def dir_verdict(self, name: str) -> _Verdict | None:
        v = self.dir_memo.get(name, _MISS)
        if v is _MISS:
            v = self.dir_memo[name] = _decide(tuple(p.tables(True) for p in self.progs), name)
        return v


def _decide(tables: tuple[_Tables, ...], name: str) -> _Verdict | None:
    for reason, t in zip(_REASONS, tables, strict=False):
        rule = t.match(name)
        if rule is not None and not rule.negated:
            return _verdict(reason, rule)
    return None


def _decide_ext(tables: tuple[_Tables, ...], ext: str | None) -> _Verdict | None:
    for reason, t in zip(_REASONS, tables, strict=False):
        rank = t.ext_rank(ext)
        if rank != _NONE and not t.rules[rank].negated:
            return _verdict(reason, t.rules[rank])
    return None


class DirState:
    __slots__ = ("chain", "decider", "excluded")

    def __init__(self) -> None:
        self.excluded: ExcludedDir | None = None
        self.chain: tuple[RuleSet, ...] = ()
        self.decider: _Decider = _NO_DECIDER


_REASONS: tuple[Reason, ...] = ("platform", "gitignore", "user")


def _rel(d: str, base: str) -> str:
    if not base:
        return d
    return "" if d == base else d[len(base) + 1 :]


class Engine:
    def __init__(self, gitignores: Mapping[str, RuleSet], user: RuleSet | None) -> None:
        self.gitignores = gitignores
        self.user = user
        self.states: dict[str, DirState] = {}
        self.excluded_dirs: list[ExcludedDir] = []
        self._programs: dict[Any, _Program] = {}
        self._deciders: dict[Any, _Decider] = {}

    def state(self, d: str) -> DirState:
        st = self.states.get(d)
        if st is not None:
            return st
        missing = [d]
        parent = d
        while parent:
            cut = parent.rfind("/")
            parent = parent[:cut] if cut >= 0 else ""
            if parent in self.states:
                break
            missing.append(parent)
        for path in reversed(missing):
            self.states[path] = self._make_state(path)
        return self.states[d]

    def _make_state(self, d: str) -> DirState:
        st = DirState()
        chain: tuple[RuleSet, ...] = ()
        if d:
            cut = d.rfind("/")
            parent = self.states[d[:cut] if cut >= 0 else ""]
            if parent.excluded is not None:
                st.excluded = parent.excluded
                return st
            verdict = parent.decider.dir_verdict(d[cut + 1 :])
            if verdict is not None:
                reason, pattern, source = verdict
                rec = ExcludedDir(d, reason, pattern or "", source)
                self.excluded_dirs.append(rec)
                st.excluded = rec
                return st
            chain = parent.chain
        own = self.gitignores.get(d)
        if own is not None and own.rules:
            chain = (*chain, own)
        st.chain = chain
        progs = [_PLATFORM_PROGRAM, self._program(d, chain)]
        if self.user is not None:
            progs.append(self._program(d, (self.user,)))
        key = tuple(map(id, progs))
        decider = self._deciders.get(key)
        if decider is None:
            decider = self._deciders[key] = _Decider(tuple(progs))
        st.decider = decider
        return st

    def _program(self, d: str, chain: tuple[RuleSet, ...]) -> _Program:
        parts: list[tuple[IgnoreRule, ...]] = []
        key: list[Any] = []
        for rs in reversed(chain):
            rules = rs.rules_for_dir(_rel(d, rs.base))
            parts.append(rules)
            key.append(rs.uid if rules is rs.name_rules else tuple(r.uid for r in rules))
        k = tuple(key)
        prog = self._programs.get(k)
        if prog is None:
            prog = self._programs[k] = _Program([r for rules in parts for r in reversed(rules)])
        return prog


_PLATFORM_RULES = compile_rules("\n".join(PLATFORM_PATTERNS))
_PLATFORM_PROGRAM = _Program(list(reversed(_PLATFORM_RULES.rules)), fold=True)
_NO_DECIDER = _Decider(())


def user_rules(patterns: Sequence[str]) -> RuleSet | None:
    rules = [r for i, p in enumerate(patterns) if (r := compile_line(p, line=i + 1)) is not None]
    return RuleSet.build("", "", rules) if rules else None


def compile_gitignores(gitignores: Mapping[str, str]) -> dict[str, RuleSet]:
    out: dict[str, RuleSet] = {}
    for d, text in gitignores.items():
        base = d.strip("/")
        src = f"{base}/.gitignore" if base else ".gitignore"
        out[base] = compile_rules(text, base=base, source=src)
    return out
