"""Everything the forge knows that git does not: users, tokens, repositories, apps, logs.
`ForgeState` holds them (the records themselves are in `records.py`) and snapshots them.

Other modules keep their own data next to this: per repository in `RepoRecord.extra`, or
forge-wide in `ForgeState.extensions`. Both are plain dicts keyed by the module's name.
"""

from __future__ import annotations

import json
import logging
import secrets
import shutil
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from sandbox_forge.contract.monitor import ContractMonitor
from sandbox_forge.git.store import GitRepo
from sandbox_forge.stores.access import AccessStore, hash_password
from sandbox_forge.stores.faults import FaultStore
from sandbox_forge.stores.oauth import OAuthStore
from sandbox_forge.stores.ratelimit import RateLimiter
from sandbox_forge.stores.records import (
    TOKEN_PREFIX,
    AppRecord,
    InstallationRecord,
    RefHook,
    RefUpdate,
    RepoRecord,
    RequestLog,
    TokenRecord,
    UserRecord,
    new_token,
)

log = logging.getLogger("sandbox_forge")


def _repo_state(repo: RepoRecord) -> dict[str, Any]:
    fields = ("id", "owner", "name", "private", "description", "default_branch", "created_at")
    data = {name: getattr(repo, name) for name in fields}
    data.update(path=str(repo.git.path), next_number=repo.next_number, extra=repo.extra)
    return data


def _jsonable(value: Any) -> Any:
    if isinstance(value, set | frozenset):
        return sorted(value)
    if is_dataclass(value) and not isinstance(value, type):
        return asdict(value)
    if isinstance(value, Path):
        return str(value)
    return repr(value)


class ForgeState:
    def __init__(
        self,
        data_dir: Path,
        *,
        latency_ms: int = 0,
        tree_truncate_limit: int = 100_000,
        rate_limit: int = 5000,
        record_responses: bool = False,
    ):
        self.data_dir = Path(data_dir)
        self.repos_dir = self.data_dir / "repos"
        self.repos_dir.mkdir(parents=True, exist_ok=True)
        self.latency_ms = latency_ms
        self.tree_truncate_limit = tree_truncate_limit
        self.admin_token = "sbx_admin_" + secrets.token_hex(16)
        self.lock = threading.RLock()
        self.users: dict[str, UserRecord] = {}
        self.tokens: dict[str, TokenRecord] = {}
        self.repos: dict[str, RepoRecord] = {}  # keyed by full_name.lower()
        self.apps: dict[str, AppRecord] = {}
        self.installations: dict[int, InstallationRecord] = {}
        self.access = AccessStore()
        self.oauth = OAuthStore()
        self.faults = FaultStore()
        self.rate = RateLimiter(core_limit=rate_limit)
        self.log = RequestLog(record_responses)
        # GitHub's descriptions held against every answer, when the environment asks (tests)
        self.contract = ContractMonitor.from_environment()
        self.ref_hooks: list[RefHook] = []
        self.extensions: dict[str, Any] = {}
        # Set by the branch-protection module: (repo, branch) -> GitHub protection JSON or None.
        self.branch_protection: Callable[[RepoRecord, str], dict[str, Any] | None] | None = None
        self._next_id = 1

    # --- ids and users --------------------------------------------------------------------

    def next_id(self) -> int:
        with self.lock:
            value = self._next_id
            self._next_id += 1
            return value

    def ensure_user(
        self,
        login: str,
        type: str = "User",
        name: str | None = None,
        email: str | None = None,
    ) -> UserRecord:
        with self.lock:
            user = self.users.get(login.lower())
            if user is None:
                user = UserRecord(login=login, id=self.next_id(), type=type, name=name)
                if email is None and type != "Organization":
                    email = f"{login}@users.noreply.sandbox"
                user.email = email
                self.users[login.lower()] = user
            return user

    def set_password(self, login: str, password: str) -> None:
        if not password:
            raise ValueError("password must not be empty")
        user = self.user(login)
        if user is None:
            raise ValueError(f"no user {login!r}")
        user.password_hash = hash_password(password)

    def user(self, login: str) -> UserRecord | None:
        return self.users.get(login.lower())

    def user_by_email(self, email: str) -> UserRecord | None:
        email = email.lower()
        return next((u for u in self.users.values() if (u.email or "").lower() == email), None)

    # --- tokens ---------------------------------------------------------------------------

    def create_token(
        self,
        login: str = "octocat",
        repos: list[str] | None = None,
        access: str = "write",
        kind: str = "classic",
        *,
        expires_at: float | None = None,
        installation_id: int | None = None,
        user_roles: bool = False,
        scopes: tuple[str, ...] | None = None,
        client_id: str | None = None,
    ) -> str:
        if kind not in TOKEN_PREFIX:
            raise ValueError(f"unknown token kind {kind!r}")
        if access not in ("read", "write"):
            raise ValueError("access must be 'read' or 'write'")
        self.ensure_user(login, type="Bot" if kind == "installation" else "User")
        token = new_token(kind)
        record = TokenRecord(
            token=token,
            login=login,
            kind=kind,
            access=access,
            repos=None if repos is None else frozenset(r.lower() for r in repos),
            expires_at=expires_at,
            installation_id=installation_id,
            user_roles=user_roles,
            scopes=scopes,
            client_id=client_id,
        )
        with self.lock:
            self.tokens[token] = record
        return token

    # --- repositories ---------------------------------------------------------------------

    def all_repos(self) -> list[RepoRecord]:
        """A snapshot, safe to iterate while other threads create repositories."""
        with self.lock:
            return list(self.repos.values())

    def repo(self, owner: str, name: str) -> RepoRecord | None:
        if name.endswith(".git"):
            name = name[:-4]
        return self.repos.get(f"{owner}/{name}".lower())

    def create_repo(
        self,
        full_name: str,
        *,
        private: bool = False,
        description: str = "",
        default_branch: str = "main",
    ) -> RepoRecord:
        owner, _, name = full_name.partition("/")
        if not owner or not name or "/" in name:
            raise ValueError(f"bad repository name {full_name!r}")
        with self.lock:
            if full_name.lower() in self.repos:
                raise ValueError(f"repository {full_name} already exists")
            owner = self.ensure_user(owner).login
            path = self.repos_dir / owner / f"{name}.git"
            # State is never reloaded from disk, so a leftover from an earlier run is stale.
            shutil.rmtree(path, ignore_errors=True)
            git = GitRepo.init_bare(path, default_branch)
            record = RepoRecord(
                id=self.next_id(),
                owner=owner,
                name=name,
                git=git,
                private=private,
                description=description,
                default_branch=default_branch,
            )
            self.repos[full_name.lower()] = record
            return record

    # --- GitHub Apps ----------------------------------------------------------------------

    def register_app(
        self,
        app_id: int | str,
        public_key_pem: str | bytes,
        installation_id: int,
        repos: list[str] | None = None,
        token_ttl_seconds: int = 3600,
        account: str | None = None,
    ) -> InstallationRecord:
        app_key = str(app_id)
        pem = public_key_pem.decode() if isinstance(public_key_pem, bytes) else public_key_pem
        account = account or (repos[0].split("/")[0] if repos else "octo-org")
        with self.lock:
            if app_key not in self.apps:
                slug = f"sandbox-app-{app_key}"
                self.apps[app_key] = AppRecord(
                    app_key, pem, slug, f"Sandbox App {app_key}", account
                )
            else:
                self.apps[app_key].public_key_pem = pem
            installation = InstallationRecord(
                id=int(installation_id),
                app_id=app_key,
                account=account,
                repos=None if repos is None else frozenset(r.lower() for r in repos),
                token_ttl_seconds=token_ttl_seconds,
            )
            self.installations[installation.id] = installation
            return installation

    # --- snapshots ------------------------------------------------------------------------

    def snapshot(self, target: Path) -> Path:
        """Copy every bare repository and dump the rest as JSON into target."""
        target = Path(target)
        target.mkdir(parents=True, exist_ok=True)
        with self.lock:
            shutil.copytree(self.repos_dir, target / "repos", dirs_exist_ok=True)
            data = {
                "users": [asdict(u) for u in self.users.values()],
                "tokens": [asdict(t) for t in self.tokens.values()],
                "repos": [_repo_state(r) for r in self.repos.values()],
                "apps": [asdict(a) for a in self.apps.values()],
                "installations": [asdict(i) for i in self.installations.values()],
                "faults": self.faults.list(),
                "access": self.access.as_json(),
                "oauth_apps": self.oauth.apps_json(),
                "extensions": self.extensions,
            }
        path = target / "state.json"
        path.write_text(json.dumps(data, indent=2, default=_jsonable, sort_keys=True))
        return path

    # --- hooks ----------------------------------------------------------------------------

    def on_ref_update(self, hook: RefHook) -> RefHook:
        self.ref_hooks.append(hook)
        return hook

    def fire_ref_update(self, update: RefUpdate) -> None:
        repo = self.repos.get(update.repo.lower())
        if repo is not None:
            repo.pushed_at = repo.updated_at = time.time()
        for hook in list(self.ref_hooks):
            try:
                hook(update)
            except Exception:  # a subscriber's bug must not fail the git write
                log.exception("ref hook %r failed for %s", hook, update)
