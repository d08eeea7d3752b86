"""Copilot's bot accounts and where Copilot is enabled.

GitHub assigns issues to the coding agent by the login `copilot-swe-agent[bot]` (the issue
then shows the bot `Copilot`) and requests Copilot's review from
`copilot-pull-request-reviewer[bot]`. Both work only in repositories where the owner's
Copilot plan enables them; elsewhere the agent is not assignable and the reviewer is not a
collaborator. Each assignment that starts the agent is kept as a session, the evidence a
test reads; a suggested assignment (suggest=true) is kept apart and starts nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sandbox_forge.stores import access
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.state import ForgeState

EXTENSION = "copilot"
AGENT = "Copilot"
AGENT_NAMES = frozenset({"copilot", "copilot-swe-agent", "copilot-swe-agent[bot]"})
REVIEWER = "copilot-pull-request-reviewer[bot]"


@dataclass
class CopilotStore:
    enabled: set[str] = field(default_factory=set)  # repository full names, lower case
    sessions: list[dict[str, Any]] = field(default_factory=list)
    suggestions: list[dict[str, Any]] = field(default_factory=list)


def store(state: ForgeState) -> CopilotStore:
    found = state.extensions.get(EXTENSION)
    if found is None:
        found = state.extensions.setdefault(EXTENSION, CopilotStore())
    return found


def ensure_bots(state: ForgeState) -> None:
    state.ensure_user(AGENT, type="Bot")
    state.ensure_user(REVIEWER, type="Bot")


def enable(state: ForgeState, full_name: str, on: bool = True) -> None:
    ensure_bots(state)
    with state.lock:
        names = store(state).enabled
        names.add(full_name.lower()) if on else names.discard(full_name.lower())


def enabled(state: ForgeState, repo: RepoRecord) -> bool:
    return repo.full_name.lower() in store(state).enabled


def is_agent(login: str) -> bool:
    return login.lower() in AGENT_NAMES


def is_copilot(login: str) -> bool:
    return is_agent(login) or login.lower() == REVIEWER


def assignable(state: ForgeState, repo: RepoRecord, login: str) -> UserRecord | None:
    """The account `login` names when it can be assigned issues in `repo`: Copilot where
    enabled, otherwise a user with a role on the repository (never another bot)."""
    if is_agent(login):
        return state.user(AGENT) if enabled(state, repo) else None
    user = state.user(login)
    if user is None or user.type != "User":
        return None
    return user if access.association(state, repo, user.login) != "NONE" else None
