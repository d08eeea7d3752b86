"""The records `ForgeState` holds: users, tokens, repositories, GitHub Apps and their
installations, ref updates, and the request log. Plain data; the state that keeps them
and hands out ids is in `state.py`."""

from __future__ import annotations

import secrets
import string
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from sandbox_forge.git.store import GitRepo

TokenKind = Literal["classic", "fine_grained", "oauth", "user_to_server", "installation"]
TOKEN_PREFIX: dict[str, str] = {
    "classic": "ghp_",
    "fine_grained": "github_pat_",
    "oauth": "gho_",
    "user_to_server": "ghu_",  # a GitHub App's user access token
    "installation": "ghs_",
}


_ALNUM = string.ascii_letters + string.digits


def _random(n: int) -> str:
    return "".join(secrets.choice(_ALNUM) for _ in range(n))


def new_token(kind: str) -> str:
    """Same prefixes and lengths as GitHub's tokens, so clients can tell the kinds apart."""
    if kind == "fine_grained":
        return f"github_pat_{_random(22)}_{_random(59)}"
    return TOKEN_PREFIX[kind] + _random(36)


@dataclass
class UserRecord:
    login: str
    id: int
    type: str = "User"  # or "Organization", "Bot"
    name: str | None = None
    email: str | None = None
    created_at: float = field(default_factory=time.time)
    password_hash: str | None = None  # set for users who sign in on the web pages


@dataclass
class TokenRecord:
    token: str
    login: str
    kind: str
    access: str = "write"  # or "read"
    repos: frozenset[str] | None = None  # full names (lower case); None = every repository
    expires_at: float | None = None
    installation_id: int | None = None
    # True: the token acts within its user's repository roles, as every GitHub token does.
    # Tokens minted by create_token() skip roles unless asked (the sandbox's test tokens).
    user_roles: bool = False
    scopes: tuple[str, ...] | None = None  # OAuth scopes granted; None: not an OAuth grant
    client_id: str | None = None  # the OAuth app that obtained it

    def expired(self, now: float | None = None) -> bool:
        return self.expires_at is not None and (now or time.time()) >= self.expires_at


@dataclass
class RepoRecord:
    id: int
    owner: str
    name: str
    git: GitRepo
    private: bool = False
    description: str = ""
    default_branch: str = "main"
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)
    pushed_at: float = field(default_factory=time.time)
    # Issues and pull requests share one number sequence on GitHub.
    next_number: int = 1
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    def take_number(self) -> int:
        number = self.next_number
        self.next_number += 1
        return number


@dataclass
class InstallationRecord:
    id: int
    app_id: str
    account: str
    repos: frozenset[str] | None  # full names (lower case); None = all
    token_ttl_seconds: int = 3600


@dataclass
class AppRecord:
    app_id: str
    public_key_pem: str
    slug: str
    name: str
    owner: str
    created_at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class RefUpdate:
    """A ref changed: old or new is None when the ref was created or deleted."""

    repo: str
    ref: str
    old: str | None
    new: str | None
    source: str  # "api", "contents", "push", "seed"


RefHook = Callable[[RefUpdate], None]


class RequestLog:
    """Requests seen (never their credentials), and optionally the full responses."""

    def __init__(self, record_responses: bool = False):
        self._lock = threading.Lock()
        self._entries: list[dict[str, Any]] = []
        self._responses: list[dict[str, Any]] = []
        self.record_responses = record_responses

    def add(self, entry: dict[str, Any]) -> None:
        with self._lock:
            self._entries.append(entry)

    def add_response(self, record: dict[str, Any]) -> None:
        with self._lock:
            self._responses.append(record)

    def entries(self) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(e) for e in self._entries]

    def responses(self) -> list[dict[str, Any]]:
        with self._lock:
            return list(self._responses)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def clear_responses(self) -> None:
        with self._lock:
            self._responses.clear()
