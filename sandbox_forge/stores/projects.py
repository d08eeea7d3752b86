"""Projects (v2): a user's or organisation's projects, their fields (text, number, date,
single select with options, iteration with iterations), views, and items (an issue or pull
request) with one value per field.

Projects belong to an owner login, not a repository, so they live in the forge's
extensions. Node ids follow GitHub's prefixes (PVT_, PVTF_, PVTSSF_, PVTIF_, PVTI_, PVTV_,
PVTSU_). A project also keeps its status updates, newest last.
"""

from __future__ import annotations

import base64
import binascii
import datetime
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.stores.state import ForgeState

PROJECTS = "projects_v2"
# Field kinds the forge models, by GitHub's ProjectV2FieldType.
DATA_TYPES = ("TITLE", "TEXT", "NUMBER", "DATE", "SINGLE_SELECT", "ITERATION")
FIELD_PREFIX = {"SINGLE_SELECT": "PVTSSF", "ITERATION": "PVTIF"}


def make_id(prefix: str, ident: int) -> str:
    raw = base64.urlsafe_b64encode(f"0:{ident}".encode()).decode().rstrip("=")
    return f"{prefix}_lADO{raw}"


def parse_id(value: str) -> tuple[str, int] | None:
    prefix, sep, rest = value.partition("_lADO")
    if not sep or not prefix:
        return None
    try:
        text = base64.urlsafe_b64decode(rest + "=" * (-len(rest) % 4)).decode()
        return prefix, int(text.split(":")[1])
    except (binascii.Error, UnicodeDecodeError, ValueError, IndexError):
        return None


@dataclass
class Option:
    id: str
    name: str
    description: str = ""


@dataclass
class Iteration:
    id: str
    title: str
    start_date: str  # YYYY-MM-DD
    duration: int = 14


@dataclass
class ProjectField:
    id: int
    name: str
    data_type: str
    options: list[Option] = field(default_factory=list)
    iterations: list[Iteration] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)

    @property
    def node_id(self) -> str:
        return make_id(FIELD_PREFIX.get(self.data_type, "PVTF"), self.id)


@dataclass
class View:
    id: int
    number: int
    name: str
    layout: str = "TABLE_LAYOUT"
    filter: str | None = None
    creator: str | None = None
    visible_fields: list[int] = field(default_factory=list)  # field ids, in order
    created_at: float = field(default_factory=time.time)


@dataclass
class StatusUpdate:
    id: int
    creator: str
    status: str | None = None  # GitHub's ProjectV2StatusUpdateStatus
    body: str | None = None
    start_date: str | None = None  # YYYY-MM-DD
    target_date: str | None = None
    created_at: float = field(default_factory=time.time)

    @property
    def node_id(self) -> str:
        return make_id("PVTSU", self.id)


@dataclass
class Item:
    id: int
    repo_id: int
    issue_id: int  # the issue's or pull request's record id in the repository
    archived: bool = False
    # field id -> value: str (text, date), float (number), option id or iteration id.
    values: dict[int, Any] = field(default_factory=dict)
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)

    @property
    def node_id(self) -> str:
        return make_id("PVTI", self.id)


@dataclass
class Project:
    id: int
    number: int
    owner: str
    title: str
    short_description: str | None = None
    readme: str | None = None
    public: bool = False
    closed: bool = False
    fields: list[ProjectField] = field(default_factory=list)
    views: list[View] = field(default_factory=list)
    items: list[Item] = field(default_factory=list)
    status_updates: list[StatusUpdate] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)

    @property
    def node_id(self) -> str:
        return make_id("PVT", self.id)

    def field_by_id(self, ident: int) -> ProjectField | None:
        return next((f for f in self.fields if f.id == ident), None)

    def item_by_id(self, ident: int) -> Item | None:
        return next((i for i in self.items if i.id == ident), None)


def projects(state: ForgeState) -> list[Project]:
    found: list[Project] = state.extensions.setdefault(PROJECTS, [])
    return found


def owned_by(state: ForgeState, owner: str) -> list[Project]:
    return [p for p in projects(state) if p.owner.lower() == owner.lower()]


def create_project(state: ForgeState, owner: str, title: str, **extra: Any) -> Project:
    with state.lock:
        number = max((p.number for p in owned_by(state, owner)), default=0) + 1
        project = Project(id=state.next_id(), number=number, owner=owner, title=title, **extra)
        projects(state).append(project)
        # GitHub gives every project a Title field and a first table view.
        project.fields.append(ProjectField(id=state.next_id(), name="Title", data_type="TITLE"))
        project.views.append(View(id=state.next_id(), number=1, name="View 1"))
    return project


def add_field(state: ForgeState, project: Project, name: str, data_type: str) -> ProjectField:
    with state.lock:
        made = ProjectField(id=state.next_id(), name=name, data_type=data_type)
        project.fields.append(made)
    return made


def add_item(state: ForgeState, project: Project, repo_id: int, issue_id: int) -> Item:
    """Adding content already in the project returns its item, as GitHub does."""
    with state.lock:
        for item in project.items:
            if (item.repo_id, item.issue_id) == (repo_id, issue_id):
                return item
        item = Item(id=state.next_id(), repo_id=repo_id, issue_id=issue_id)
        project.items.append(item)
        project.updated_at = time.time()
    return item


def set_value(state: ForgeState, project: Project, item: Item, field_id: int, value: Any) -> None:
    with state.lock:
        item.values[field_id] = value
        item.updated_at = project.updated_at = time.time()


def find_by_node(state: ForgeState, value: str) -> tuple[str, Project, Any] | None:
    """(prefix, project, the project, field or item the id names), or None."""
    parsed = parse_id(value)
    if parsed is None:
        return None
    prefix, ident = parsed
    for project in projects(state):
        if prefix == "PVT" and project.id == ident:
            return prefix, project, project
        found = project.item_by_id(ident) if prefix == "PVTI" else project.field_by_id(ident)
        if found is not None and (prefix == "PVTI" or found.node_id == value):
            return prefix, project, found
    return None


def delete_item(state: ForgeState, project: Project, item: Item) -> None:
    with state.lock:
        project.items = [i for i in project.items if i.id != item.id]
        project.updated_at = time.time()


def add_status_update(
    state: ForgeState, project: Project, creator: str, **fields: str | None
) -> StatusUpdate:
    with state.lock:
        made = StatusUpdate(id=state.next_id(), creator=creator, **fields)  # type: ignore[arg-type]
        project.status_updates.append(made)
        project.updated_at = time.time()
    return made


def add_iteration_field(
    state: ForgeState,
    project: Project,
    name: str,
    start_date: str,
    duration: int,
    iterations: list[tuple[str, str, int]],
) -> ProjectField:
    """An iteration field; with no iterations given, three of `duration` days from
    start_date, as GitHub makes them."""
    if not iterations:
        start = datetime.date.fromisoformat(start_date)
        iterations = [
            (f"Iteration {n + 1}", (start + datetime.timedelta(days=n * duration)).isoformat(),
             duration)
            for n in range(3)
        ]  # fmt: skip
    with state.lock:
        made = ProjectField(id=state.next_id(), name=name, data_type="ITERATION")
        made.iterations = [
            Iteration(id=secrets.token_hex(4), title=title, start_date=start, duration=days)
            for title, start, days in sorted(iterations, key=lambda i: i[1])
        ]
        project.fields.append(made)
    return made


def add_view(
    state: ForgeState, project: Project, name: str, layout: str, creator: str, **extra: Any
) -> View:
    with state.lock:
        number = max((v.number for v in project.views), default=0) + 1
        made = View(id=state.next_id(), number=number, name=name, layout=layout, creator=creator)
        made.filter, made.visible_fields = extra.get("filter"), list(extra.get("visible", []))
        project.views.append(made)
        project.updated_at = time.time()
    return made
