"""Which sources each approval scope (principal and session) has read from, for the
cross-visibility guard (flow_guard.py): repositories (`owner/repo`), and the projects and
gists GitHub's answers named (`project:owner/n`, `gist:id`). Each with its visibility
when an answer stated it; a source without one is looked up when a write needs it, and
counts as private when it cannot be.

Bounded: at most MAX_REPOS sources per scope (past that the scope is marked overflowing,
which the guard treats as having read something private) and MAX_SCOPES scopes, the
least recently used forgotten first. A scope's record goes when its session ends.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field

from github_mcp.github.provenance import stricter

MAX_REPOS = 256
MAX_SCOPES = 10_000
# A caller nothing identifies (unauthenticated HTTP without a server session): all such
# callers share one record, so what one of them read counts for all.
UNIDENTIFIED = "<unidentified>"


def merge(into: dict[str, str | None], more: Mapping[str, str | None]) -> None:
    """Add `more` to `into`, matching names case-insensitively."""
    spelled = {name.lower(): name for name in into}
    for name, visibility in more.items():
        known = spelled.get(name.lower())
        if known is None:
            into[name] = visibility
            spelled[name.lower()] = name
        else:
            into[known] = stricter(into[known], visibility)


@dataclass
class _Record:
    sources: dict[str, tuple[str, str | None]] = field(default_factory=dict)  # lower -> …
    overflow: bool = False


class ReadLedger:
    def __init__(self, max_repos: int = MAX_REPOS, max_scopes: int = MAX_SCOPES) -> None:
        self._max_repos = max_repos
        self._max_scopes = max_scopes
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def __len__(self) -> int:
        return len(self._records)  # scopes recorded (a bounded-memory check reads it)

    def note(self, scope: str | None, sources: Mapping[str, str | None]) -> None:
        """Record that the scope's call read from `sources` (name -> visibility or None)."""
        if not sources:
            return
        key = scope or UNIDENTIFIED
        record = self._records.pop(key, None) or _Record()
        self._records[key] = record
        for name, visibility in sources.items():
            known = record.sources.get(name.lower())
            if known is not None:
                record.sources[name.lower()] = (known[0], stricter(known[1], visibility))
                continue
            if len(record.sources) >= self._max_repos:
                record.overflow = True
                continue
            record.sources[name.lower()] = (name, visibility)
        while len(self._records) > self._max_scopes:
            self._records.popitem(last=False)

    def read_by(self, scope: str | None) -> tuple[dict[str, str | None], bool]:
        """The sources the scope read (name -> visibility or None), and whether there
        were more than recorded."""
        record = self._records.get(scope or UNIDENTIFIED)
        if record is None:
            return {}, False
        return dict(record.sources.values()), record.overflow

    def drop(self, scope: str) -> None:
        self._records.pop(scope, None)
