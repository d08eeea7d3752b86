"""Code security: a repository's code scanning, Dependabot and secret scanning alerts, and
security advisories (the global database, and repository advisories).

Alerts are numbered per repository and kind, as GitHub numbers them. A secret scanning
alert keeps the secret itself: GitHub returns it in `secret` unless hide_secret is asked.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field
from operator import eq, ge, gt, le, lt

from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

ALERTS = "security_alerts"
ADVISORIES = "security_advisories"
KINDS = ("code-scanning", "dependabot", "secret-scanning")


@dataclass
class Advisory:
    """One advisory, as the global database (and Dependabot alerts) describe it."""

    ghsa_id: str
    cve_id: str | None
    summary: str
    description: str
    severity: str  # low | medium | high | critical
    ecosystem: str
    package: str
    vulnerable_range: str
    patched: str | None
    cvss_vector: str | None = None
    cvss_score: float = 0.0
    cwes: list[tuple[str, str]] = field(default_factory=list)
    references: list[str] = field(default_factory=list)
    published_at: float = field(default_factory=time.time)
    # Repository advisories only: the repository (lower-case full name) and state.
    repo: str | None = None
    state: str = "published"


@dataclass
class Alert:
    """One alert of any kind; the fields a kind does not use stay empty."""

    number: int
    kind: str
    state: str = "open"
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    dismissed_by: str | None = None
    dismissed_at: float | None = None
    dismissed_reason: str | None = None
    dismissed_comment: str | None = None
    fixed_at: float | None = None
    # code scanning
    rule: dict[str, str | None] = field(default_factory=dict)
    tool: str = "CodeQL"
    ref: str = "refs/heads/main"
    commit_sha: str = ""
    path: str = ""
    start_line: int = 0
    end_line: int = 0
    message: str = ""
    # dependabot
    advisory: Advisory | None = None
    manifest: str = ""
    scope: str = "runtime"
    # secret scanning
    secret_type: str = ""
    secret_type_display_name: str = ""
    secret: str = ""
    blob_sha: str = ""


def alerts(repo: RepoRecord, kind: str) -> dict[int, Alert]:
    every: dict[str, dict[int, Alert]] = repo.extra.setdefault(ALERTS, {})
    return every.setdefault(kind, {})


def add_alert(state: ForgeState, repo: RepoRecord, alert: Alert) -> Alert:
    with state.lock:
        found = alerts(repo, alert.kind)
        alert.number = max(found, default=0) + 1
        found[alert.number] = alert
    return alert


def advisories(state: ForgeState) -> list[Advisory]:
    found: list[Advisory] = state.extensions.setdefault(ADVISORIES, [])
    return found


def add_advisory(state: ForgeState, advisory: Advisory) -> Advisory:
    with state.lock:
        advisories(state).append(advisory)
    return advisory


def _version(text: str) -> tuple[int, ...]:
    return tuple(int(part) for part in re.findall(r"\d+", text)[:4])


def in_range(version: str, vulnerable_range: str) -> bool:
    """Whether version is inside a range like "<= 2.19.1" or ">= 1.0, < 1.2.6"."""
    checks = {"<=": le, "<": lt, ">=": ge, ">": gt, "=": eq}
    for clause in vulnerable_range.split(","):
        found = re.match(r"\s*(<=|>=|<|>|=)\s*(\S+)", clause)
        if found and not checks[found.group(1)](_version(version), _version(found.group(2))):
            return False
    return True


def pinned_version(manifest: str, package: str) -> str | None:
    """The version a requirements file pins package to (name==version), if it does."""
    pattern = rf"^\s*{re.escape(package)}\s*==\s*([\w.]+)"
    found = re.search(pattern, manifest, re.IGNORECASE | re.MULTILINE)
    return found.group(1) if found else None
