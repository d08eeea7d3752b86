"""Milestone records of a repository, numbered apart from issues as on GitHub, and their
JSON shape (issue counts are computed from the issues that carry the milestone)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sandbox_forge.kernel.errors import validation_failed
from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.lookups import iso_or_none, node_id, now, user_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

EXTENSION = "milestones"


@dataclass
class Milestone:
    number: int
    id: int
    title: str
    creator: str
    created_at: float
    updated_at: float
    description: str | None = None
    state: str = "open"
    due_on: str | None = None
    closed_at: float | None = None


def milestones(repo: RepoRecord) -> dict[int, Milestone]:
    found: dict[int, Milestone] = repo.extra.setdefault(EXTENSION, {})
    return found


def create_milestone(
    state: ForgeState,
    repo: RepoRecord,
    creator: str,
    title: str,
    description: str | None = None,
    due_on: str | None = None,
) -> Milestone:
    with state.lock:
        table = milestones(repo)
        stamp = now()
        milestone = Milestone(
            number=max(table, default=0) + 1,
            id=state.next_id(),
            title=title,
            creator=state.ensure_user(creator).login,
            created_at=stamp,
            updated_at=stamp,
            description=description,
            due_on=due_on,
        )
        table[milestone.number] = milestone
        return milestone


def milestone_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, milestone: Milestone
) -> dict[str, Any]:
    api = f"{urls.repo(repo.full_name)}/milestones/{milestone.number}"
    carried = [i for i in collab(repo).issues.values() if i.milestone == milestone.number]
    return {
        "url": api,
        "html_url": f"{urls.repo_html(repo.full_name)}/milestone/{milestone.number}",
        "labels_url": f"{api}/labels",
        "id": milestone.id,
        "node_id": node_id("MI", repo, milestone.id),
        "number": milestone.number,
        "state": milestone.state,
        "title": milestone.title,
        "description": milestone.description,
        "creator": user_json(state, urls, milestone.creator),
        "open_issues": sum(1 for i in carried if i.state == "open"),
        "closed_issues": sum(1 for i in carried if i.state == "closed"),
        "created_at": iso(milestone.created_at),
        "updated_at": iso(milestone.updated_at),
        "closed_at": iso_or_none(milestone.closed_at),
        "due_on": milestone.due_on,
    }


def milestone_field(repo: RepoRecord, value: Any) -> int | None:
    """An issue's `milestone` as PATCH sends it: null clears, a number (or its string)
    must name one of the repository's milestones."""
    if value is None:
        return None
    number = int(value) if isinstance(value, str) and value.isdigit() else value
    if not isinstance(number, int) or isinstance(number, bool) or number not in milestones(repo):
        raise validation_failed(
            {"resource": "Issue", "field": "milestone", "code": "invalid", "value": value}
        )
    return number
