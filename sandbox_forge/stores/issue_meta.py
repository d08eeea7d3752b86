"""Issue types and issue fields: an organisation's definitions and each issue's values.

GitHub defines both per organisation (GET /orgs/{org}/issue-types, /orgs/{org}/issue-fields);
an issue in one of the organisation's repositories carries at most one type and a value per
field. Repositories owned by a user have neither. Kept in state.extensions, keyed by the
organisation's lower-case login and by issue id.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.kernel.formats import iso
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.state import ForgeState

EXTENSION = "issue_meta"
COLORS = ("gray", "blue", "green", "yellow", "orange", "red", "pink", "purple")
DATA_TYPES = ("text", "date", "single_select", "multi_select", "number")


@dataclass
class IssueType:
    id: int
    name: str
    description: str | None = None
    color: str | None = None
    is_enabled: bool = True
    created_at: float = field(default_factory=now)
    updated_at: float = field(default_factory=now)


@dataclass
class FieldOption:
    id: int
    name: str
    color: str = "gray"
    description: str | None = None
    priority: int | None = None


@dataclass
class IssueField:
    id: int
    name: str
    data_type: str
    description: str | None = None
    visibility: str = "organization_members_only"
    options: list[FieldOption] = field(default_factory=list)
    created_at: float = field(default_factory=now)
    updated_at: float = field(default_factory=now)

    def option(self, name: str) -> FieldOption | None:
        return next((o for o in self.options if o.name.lower() == name.lower()), None)


@dataclass
class MetaStore:
    types: dict[str, list[IssueType]] = field(default_factory=dict)  # org -> types
    fields: dict[str, list[IssueField]] = field(default_factory=dict)  # org -> fields
    issue_type: dict[int, int] = field(default_factory=dict)  # issue id -> type id
    # issue id -> field id -> value (str or number; a list of option names for multi-select)
    values: dict[int, dict[int, Any]] = field(default_factory=dict)
    # Changes sent with suggest=true: kept for a human to review, not applied.
    suggestions: list[dict[str, Any]] = field(default_factory=list)


def store(state: ForgeState) -> MetaStore:
    found = state.extensions.get(EXTENSION)
    if found is None:
        found = state.extensions.setdefault(EXTENSION, MetaStore())
    return found


def org_types(state: ForgeState, org: str) -> list[IssueType]:
    return store(state).types.get(org.lower(), [])


def org_fields(state: ForgeState, org: str) -> list[IssueField]:
    return store(state).fields.get(org.lower(), [])


def add_type(
    state: ForgeState, org: str, name: str, description: str | None = None, color: str = "gray"
) -> IssueType:
    with state.lock:
        found = IssueType(id=state.next_id(), name=name, description=description, color=color)
        store(state).types.setdefault(org.lower(), []).append(found)
        return found


def add_field(
    state: ForgeState,
    org: str,
    name: str,
    data_type: str,
    description: str | None = None,
    options: list[str] | None = None,
) -> IssueField:
    if data_type not in DATA_TYPES:
        raise ValueError(f"unknown data type {data_type!r}")
    with state.lock:
        made = IssueField(id=state.next_id(), name=name, data_type=data_type)
        made.description = description
        for rank, option in enumerate(options or [], start=1):
            color = COLORS[rank % len(COLORS)]
            made.options.append(FieldOption(state.next_id(), option, color, priority=rank))
        store(state).fields.setdefault(org.lower(), []).append(made)
        return made


def type_of(state: ForgeState, org: str, issue_id: int) -> IssueType | None:
    wanted = store(state).issue_type.get(issue_id)
    return next((t for t in org_types(state, org) if t.id == wanted), None)


def find_type(state: ForgeState, org: str, name: str) -> IssueType | None:
    return next(
        (t for t in org_types(state, org) if t.is_enabled and t.name.lower() == name.lower()),
        None,
    )


def set_type(state: ForgeState, issue_id: int, found: IssueType | None) -> None:
    with state.lock:
        if found is None:
            store(state).issue_type.pop(issue_id, None)
        else:
            store(state).issue_type[issue_id] = found.id


def values_of(state: ForgeState, issue_id: int) -> dict[int, Any]:
    return store(state).values.get(issue_id, {})


def type_json(found: IssueType) -> dict[str, Any]:
    return {
        "id": found.id,
        "node_id": f"IT_kwDO{found.id:08d}",
        "name": found.name,
        "description": found.description,
        "color": found.color,
        "created_at": iso(found.created_at),
        "updated_at": iso(found.updated_at),
        "is_enabled": found.is_enabled,
    }
