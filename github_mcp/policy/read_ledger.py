"""Which repositories each approval scope (principal and session) has read from, for the
cross-visibility guard (flow_guard.py). Names only: whether a repository is private is
looked up when a write needs it, so a read costs nothing more.

Bounded: at most MAX_REPOS names per scope (past that the scope is marked overflowing,
which the guard treats as having read something private) and MAX_SCOPES scopes, the
least recently used forgotten first. A scope's record goes when its session ends.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass, field

MAX_REPOS = 256
MAX_SCOPES = 10_000
# A caller nothing identifies (unauthenticated HTTP without a server session): all such
# callers share one record, so what one of them read counts for all.
UNIDENTIFIED = "<unidentified>"


@dataclass
class _Record:
    repos: dict[str, str] = field(default_factory=dict)  # lower-cased -> as spelled
    overflow: bool = False


class ReadLedger:
    def __init__(self, max_repos: int = MAX_REPOS, max_scopes: int = MAX_SCOPES) -> None:
        self._max_repos = max_repos
        self._max_scopes = max_scopes
        self._records: OrderedDict[str, _Record] = OrderedDict()

    def __len__(self) -> int:
        return len(self._records)  # scopes recorded (a bounded-memory check reads it)

    def note(self, scope: str | None, repos: set[str]) -> None:
        """Record that the scope's call read from `repos`."""
        if not repos:
            return
        key = scope or UNIDENTIFIED
        record = self._records.pop(key, None) or _Record()
        self._records[key] = record
        for repo in repos:
            if repo.lower() in record.repos:
                continue
            if len(record.repos) >= self._max_repos:
                record.overflow = True
                break
            record.repos[repo.lower()] = repo
        while len(self._records) > self._max_scopes:
            self._records.popitem(last=False)

    def read_by(self, scope: str | None) -> tuple[tuple[str, ...], bool]:
        """The repositories the scope read, and whether there were more than recorded."""
        record = self._records.get(scope or UNIDENTIFIED)
        if record is None:
            return (), False
        return tuple(record.repos.values()), record.overflow

    def drop(self, scope: str) -> None:
        self._records.pop(scope, None)
