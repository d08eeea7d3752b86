"""Code Quality findings, kept per repository in `RepoRecord.extra["code_quality"]` once
code quality is set up for it, numbered per repository."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

EXTENSION = "code_quality"


@dataclass
class Finding:
    number: int
    rule_id: str
    title: str
    description: str
    severity: str
    category: str
    path: str
    start_line: int
    end_line: int
    message: str
    help: str = ""
    state: str = "open"
    created_at: float = field(default_factory=now)


@dataclass
class QualityStore:
    findings: dict[int, Finding] = field(default_factory=dict)


def quality(repo: RepoRecord) -> QualityStore | None:
    """The repository's findings, or None where code quality is not set up."""
    found: QualityStore | None = repo.extra.get(EXTENSION)
    return found


def set_up(repo: RepoRecord) -> QualityStore:
    found = repo.extra.get(EXTENSION)
    if found is None:
        found = repo.extra.setdefault(EXTENSION, QualityStore())
    return found


def add_finding(state: ForgeState, repo: RepoRecord, **fields: Any) -> Finding:
    with state.lock:
        store = set_up(repo)
        finding = Finding(number=len(store.findings) + 1, **fields)
        store.findings[finding.number] = finding
        return finding
