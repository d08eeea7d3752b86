"""Stars and teams.

Stars: per user, the repositories they starred and when. Teams: per organisation, teams
with members (role member or maintainer); a team's members are members of its
organisation, as on GitHub.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from sandbox_forge.stores.state import ForgeState

STARS = "stars"
TEAMS = "teams"


@dataclass
class Team:
    id: int
    org: str
    name: str
    slug: str
    description: str | None = None
    privacy: str = "closed"  # visible to every member of the organisation
    permission: str = "pull"
    members: dict[str, str] = field(default_factory=dict)  # login -> member|maintainer
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)


def stars(state: ForgeState, login: str) -> dict[str, float]:
    """The user's starred repositories, by lower-case full name, with when they starred."""
    found: dict[str, dict[str, float]] = state.extensions.setdefault(STARS, {})
    return found.setdefault(login.lower(), {})


def star_count(state: ForgeState, full_name: str) -> int:
    users: dict[str, dict[str, float]] = state.extensions.get(STARS, {})
    return sum(1 for starred in users.values() if full_name.lower() in starred)


def org_teams(state: ForgeState, org: str) -> dict[str, Team]:
    found: dict[str, dict[str, Team]] = state.extensions.setdefault(TEAMS, {})
    return found.setdefault(org.lower(), {})


def teams_of(state: ForgeState, login: str) -> list[Team]:
    every: dict[str, dict[str, Team]] = state.extensions.get(TEAMS, {})
    mine = [t for teams in every.values() for t in teams.values() if login.lower() in t.members]
    return sorted(mine, key=lambda t: (t.org.lower(), t.slug))


def add_team(
    state: ForgeState, org: str, name: str, members: dict[str, str], description: str = ""
) -> Team:
    slug = "-".join(name.lower().split())
    with state.lock:
        team = Team(
            id=state.next_id(),
            org=org,
            name=name,
            slug=slug,
            description=description or None,
            members={login.lower(): role for login, role in members.items()},
        )
        org_teams(state, org)[slug] = team
    return team
