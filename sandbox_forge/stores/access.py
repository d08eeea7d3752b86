"""Who may do what where: passwords, organisation membership and repository roles.

GitHub's model, kept small: a user's role on a repository is the highest of
- owner of the repository (a user account) or admin of the owning organisation: admin;
- a direct collaborator role (read, triage, write, maintain, admin);
- the organisation's base permission for its members (GitHub's default: read);
- read on any public repository.
A private repository the user has no role on does not exist for them (404).
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
import threading
from typing import Protocol

ROLES = ("read", "triage", "write", "maintain", "admin")
RANK = {role: index + 1 for index, role in enumerate(ROLES)}
# The REST API's names for roles ("permission" in PUT collaborators) and back.
API_PERMISSION_TO_ROLE = {
    "pull": "read",
    "read": "read",
    "triage": "triage",
    "push": "write",
    "write": "write",
    "maintain": "maintain",
    "admin": "admin",
}
# GET .../permission answers a legacy "permission" next to role_name.
ROLE_TO_LEGACY_PERMISSION = {
    "read": "read",
    "triage": "read",
    "write": "write",
    "maintain": "write",
    "admin": "admin",
}
ORG_ROLES = ("admin", "member")
# A sandbox: cheap enough that seeding stays fast, still salted and memory-hard.
_SCRYPT = {"n": 2**12, "r": 8, "p": 1}


def highest(*roles: str | None) -> str | None:
    present = [r for r in roles if r is not None]
    return max(present, key=RANK.__getitem__) if present else None


def lowest(*roles: str | None) -> str | None:
    if any(r is None for r in roles):
        return None
    return min(roles, key=lambda r: RANK[r])  # type: ignore[arg-type,index]


def at_least(role: str | None, wanted: str) -> bool:
    return role is not None and RANK[role] >= RANK[wanted]


def hash_password(password: str) -> str:
    salt = secrets.token_bytes(16)
    digest = hashlib.scrypt(password.encode(), salt=salt, **_SCRYPT)
    return f"scrypt${salt.hex()}${digest.hex()}"


def password_matches(stored: str | None, password: str) -> bool:
    if not stored:
        return False
    _scheme, salt, digest = stored.split("$")
    candidate = hashlib.scrypt(password.encode(), salt=bytes.fromhex(salt), **_SCRYPT)
    return hmac.compare_digest(candidate.hex(), digest)


class AccessStore:
    """Organisation members and repository collaborators, keyed by lower-case names."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.org_members: dict[str, dict[str, str]] = {}  # org -> login -> admin|member
        self.org_base_permission: dict[str, str | None] = {}  # org -> role (default read)
        self.collaborators: dict[str, dict[str, str]] = {}  # repo full name -> login -> role

    # --- organisations ----------------------------------------------------------------------

    def set_org_member(self, org: str, login: str, role: str = "member") -> None:
        if role not in ORG_ROLES:
            raise ValueError(f"organisation role must be one of {', '.join(ORG_ROLES)}")
        with self._lock:
            self.org_members.setdefault(org.lower(), {})[login.lower()] = role

    def remove_org_member(self, org: str, login: str) -> bool:
        with self._lock:
            return self.org_members.get(org.lower(), {}).pop(login.lower(), None) is not None

    def org_role(self, org: str, login: str) -> str | None:
        return self.org_members.get(org.lower(), {}).get(login.lower())

    def orgs_of(self, login: str) -> list[str]:
        login = login.lower()
        return sorted(org for org, members in self.org_members.items() if login in members)

    def set_base_permission(self, org: str, role: str | None) -> None:
        if role is not None and role not in RANK:
            raise ValueError(f"base permission must be one of {', '.join(ROLES)} or null")
        self.org_base_permission[org.lower()] = role

    # --- collaborators ----------------------------------------------------------------------

    def set_collaborator(self, repo: str, login: str, role: str) -> None:
        if role not in RANK:
            raise ValueError(f"role must be one of {', '.join(ROLES)}")
        with self._lock:
            self.collaborators.setdefault(repo.lower(), {})[login.lower()] = role

    def remove_collaborator(self, repo: str, login: str) -> bool:
        with self._lock:
            return self.collaborators.get(repo.lower(), {}).pop(login.lower(), None) is not None

    def collaborator_role(self, repo: str, login: str) -> str | None:
        return self.collaborators.get(repo.lower(), {}).get(login.lower())

    def as_json(self) -> dict[str, object]:
        return {
            "org_members": self.org_members,
            "org_base_permission": self.org_base_permission,
            "collaborators": self.collaborators,
        }


# What the role lookups read of ForgeState (state.py) and the RepoRecord and UserRecord it
# holds (records.py); Protocols because state.py builds on this module and is not imported back.
class _User(Protocol):
    @property
    def login(self) -> str: ...

    @property
    def type(self) -> str: ...


class RepoRecord(Protocol):
    @property
    def owner(self) -> str: ...

    @property
    def full_name(self) -> str: ...

    @property
    def private(self) -> bool: ...


class ForgeState(Protocol):
    @property
    def access(self) -> AccessStore: ...

    def user(self, login: str) -> _User | None: ...


def _owned_by_org(state: ForgeState, repo: RepoRecord) -> bool:
    owner = state.user(repo.owner)
    return owner is not None and owner.type == "Organization"


def user_role(state: ForgeState, repo: RepoRecord, login: str) -> str | None:
    """The user's own role on repo, before any token narrows it; None: no access."""
    access = state.access
    if repo.owner.lower() == login.lower():
        return "admin"
    org_base = None
    if _owned_by_org(state, repo):
        org_role = access.org_role(repo.owner, login)
        if org_role == "admin":
            return "admin"
        if org_role == "member":
            org_base = access.org_base_permission.get(repo.owner.lower(), "read")
    public = None if repo.private else "read"
    return highest(access.collaborator_role(repo.full_name, login), org_base, public)


def association(state: ForgeState, repo: RepoRecord, login: str | None) -> str:
    """GitHub's author_association of a user with a repository."""
    if not login:
        return "NONE"
    if repo.owner.lower() == login.lower():
        return "OWNER"
    if _owned_by_org(state, repo) and state.access.org_role(repo.owner, login) is not None:
        return "MEMBER"
    if state.access.collaborator_role(repo.full_name, login) is not None:
        return "COLLABORATOR"
    return "NONE"


def collaborator_logins(state: ForgeState, repo: RepoRecord) -> list[tuple[str, str]]:
    """(login, role) of everyone with a role on repo beyond public read, as GitHub lists
    them for affiliation=all: the owner, organisation members and direct collaborators."""
    logins = {repo.owner.lower()} if not _owned_by_org(state, repo) else set()
    if _owned_by_org(state, repo):
        logins |= set(state.access.org_members.get(repo.owner.lower(), {}))
    logins |= set(state.access.collaborators.get(repo.full_name.lower(), {}))
    found = []
    for login in sorted(logins):
        user = state.user(login)
        role = user_role(state, repo, login) if user is not None else None
        if user is not None and role is not None:
            found.append((user.login, role))
    return found
