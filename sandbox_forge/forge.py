"""The Forge: the sandbox's public face, a server you start, seed and inspect in-process."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import shutil
import socket
import tempfile
import threading
import time
from pathlib import Path
from types import TracebackType
from typing import Any

import uvicorn

from sandbox_forge.admin.access_routes import expire_token, register_oauth_app
from sandbox_forge.admin.seeding import FileValue, repo_summary, seed_repo
from sandbox_forge.app import build_app
from sandbox_forge.git.cache import close_readers
from sandbox_forge.stores.records import RefHook
from sandbox_forge.stores.state import ForgeState

_UNFINISHED_RESPONSE = "ASGI callable returned without completing response."


class _DroppedConnectionFilter(logging.Filter):
    """Injected connection drops are on purpose: keep uvicorn from reporting them as errors."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != _UNFINISHED_RESPONSE


class _Server(uvicorn.Server):
    """uvicorn's server, woken by an event on stop instead of polling every 100 ms."""

    wake: asyncio.Event | None = None
    loop: asyncio.AbstractEventLoop | None = None

    async def main_loop(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.wake = asyncio.Event()
        counter = 0
        while not await self.on_tick(counter):
            counter = (counter + 10) % 864000  # on_tick refreshes the Date header every 10
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.wake.wait(), timeout=1.0)

    def request_exit(self) -> None:
        self.should_exit = True
        if self.loop is not None and self.wake is not None:
            with contextlib.suppress(RuntimeError):  # the loop may already be closed
                self.loop.call_soon_threadsafe(self.wake.set)


class Forge:
    def __init__(
        self,
        data_dir: Path | str | None = None,
        latency_ms: int = 0,
        tree_truncate_limit: int = 100_000,
        rate_limit: int = 5000,
        record_responses: bool = False,
    ):
        self._tmp: str | None = None
        if data_dir is None:
            self._tmp = tempfile.mkdtemp(prefix="sandbox-forge-")
            data_dir = self._tmp
        self._settings = {
            "latency_ms": latency_ms,
            "tree_truncate_limit": tree_truncate_limit,
            "rate_limit": rate_limit,
            "record_responses": record_responses,
        }
        try:
            self.state = ForgeState(Path(data_dir), **self._settings)  # type: ignore[arg-type]
            self.app = build_app(self.state)
        except BaseException:
            # e.g. SIGTERM while the app is still being built: nobody will call stop()
            if self._tmp is not None:
                shutil.rmtree(self._tmp, ignore_errors=True)
            raise
        self.base_url: str | None = None
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def admin_token(self) -> str:
        return self.state.admin_token

    @property
    def data_dir(self) -> Path:
        return self.state.data_dir

    # --- lifecycle ------------------------------------------------------------------------

    async def _dispatch(self, scope: Any, receive: Any, send: Any) -> None:
        # The server calls through here, so reset() can swap in a fresh app while it runs.
        await self.app(scope, receive, send)

    def reset(self) -> None:
        """Forget everything (repositories, users, tokens, apps, faults, logs, settings) but
        keep serving at the same URL with the same admin token. Far cheaper than a restart."""
        old = self.state
        close_readers(old.repos_dir)  # the repositories' cat-file processes
        shutil.rmtree(old.repos_dir, ignore_errors=True)
        self.state = ForgeState(old.data_dir, **self._settings)  # type: ignore[arg-type]
        self.state.admin_token = old.admin_token
        self.app = build_app(self.state)

    def start(self, host: str = "127.0.0.1", port: int = 0) -> str:
        if self._server is not None:
            raise RuntimeError("forge already started")
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        # proto=IPPROTO_TCP matters: asyncio only sets TCP_NODELAY on accepted sockets whose
        # proto says TCP, and without it every keep-alive response waits ~40 ms (Nagle).
        sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((host, port))
        uvicorn_log = logging.getLogger("uvicorn.error")
        if not any(isinstance(f, _DroppedConnectionFilter) for f in uvicorn_log.filters):
            uvicorn_log.addFilter(_DroppedConnectionFilter())
        config = uvicorn.Config(
            self._dispatch,
            interface="asgi3",
            log_level="warning",
            lifespan="off",
            access_log=False,
            timeout_keep_alive=30,
            timeout_graceful_shutdown=3,
        )
        self._server = _Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, name="sandbox-forge", daemon=True
        )
        self._thread.start()
        deadline = time.monotonic() + 15
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("sandbox forge failed to start")
            time.sleep(0.01)
        bound = sock.getsockname()[1]
        shown = f"[{host}]" if family == socket.AF_INET6 else host
        self.base_url = f"http://{shown}:{bound}"
        return self.base_url

    def stop(self) -> None:
        if self._server is not None:
            self._server.request_exit()
            if self._thread is not None:
                self._thread.join(timeout=10)
            self._server = None
            self._thread = None
        close_readers(self.state.data_dir)
        if self._tmp is not None:
            shutil.rmtree(self._tmp, ignore_errors=True)
            self._tmp = None

    def __enter__(self) -> Forge:
        if self._server is None:
            self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    # --- in-process admin helpers (mirror /_sandbox/) -------------------------------------

    def create_token(
        self,
        login: str = "octocat",
        repos: list[str] | None = None,
        access: str = "write",
        kind: str = "classic",
        user_roles: bool = False,
    ) -> str:
        """A token for login. user_roles=True bounds it by the user's repository roles,
        as GitHub bounds every token; without it the token reaches every repository."""
        return self.state.create_token(
            login=login, repos=repos, access=access, kind=kind, user_roles=user_roles
        )

    def add_user(
        self,
        login: str,
        type: str = "User",
        name: str | None = None,
        email: str | None = None,
        password: str | None = None,
    ) -> dict[str, Any]:
        """A user (or organisation); a password lets them sign in on the OAuth pages."""
        user = self.state.ensure_user(login, type=type, name=name, email=email)
        if password is not None:
            self.state.set_password(user.login, password)
        return {"login": user.login, "id": user.id, "type": user.type}

    def add_org_member(self, org: str, login: str, role: str = "member") -> None:
        """Make login a member ("member") or owner ("admin") of the organisation org."""
        self.state.ensure_user(org, type="Organization")
        self.state.access.set_org_member(org, self.state.ensure_user(login).login, role)

    def add_collaborator(self, full_name: str, login: str, role: str = "write") -> None:
        """Give login a role on a repository: read, triage, write, maintain or admin."""
        self.state.access.set_collaborator(full_name, self.state.ensure_user(login).login, role)

    def register_oauth_app(
        self,
        name: str,
        callback_urls: list[str] | str,
        expiring: bool = False,
        access_token_ttl_seconds: int = 28800,
        refresh_token_ttl_seconds: int = 15897600,
    ) -> dict[str, Any]:
        """An OAuth app ({client_id, client_secret, …}); expiring=True issues GitHub App
        style user tokens (ghu_ with expires_in, ghr_ refresh tokens) instead of gho_."""
        return register_oauth_app(
            self.state,
            name,
            callback_urls,
            expiring=expiring,
            access_token_ttl_seconds=access_token_ttl_seconds,
            refresh_token_ttl_seconds=refresh_token_ttl_seconds,
        )

    def expire_token(self, token: str) -> bool:
        """Expire a token now: the next request with it gets 401 Bad credentials."""
        return expire_token(self.state, token)

    def seed_repo(
        self,
        full_name: str,
        files: dict[str, FileValue] | None = None,
        default_branch: str = "main",
        private: bool = False,
        description: str = "",
        branches: dict[str, dict[str, FileValue]] | None = None,
        source_dir: Path | str | None = None,
    ) -> dict[str, Any]:
        repo = seed_repo(
            self.state,
            full_name,
            files,
            default_branch=default_branch,
            private=private,
            description=description,
            branches=branches,
            source_dir=source_dir,
        )
        return repo_summary(repo)

    def rename_repo(self, full_name: str, new_name: str) -> dict[str, Any]:
        """Rename a repository as GitHub does: the old name answers 301/307 to
        /repositories/{id} until a repository takes that name again."""
        from sandbox_forge.rest.moved import move_repo

        owner = full_name.partition("/")[0]
        return repo_summary(move_repo(self.state, full_name, f"{owner}/{new_name}"))

    def transfer_repo(self, full_name: str, new_owner: str) -> dict[str, Any]:
        """Transfer a repository to another owner; the old name redirects like a rename."""
        from sandbox_forge.rest.moved import move_repo

        name = full_name.partition("/")[2]
        return repo_summary(move_repo(self.state, full_name, f"{new_owner}/{name}"))

    def add_fault(
        self,
        path: str = ".*",
        method: str | None = None,
        status: int | None = None,
        times: int | None = 1,
        retry_after: int | None = None,
        latency_ms: int = 0,
        body: Any = None,
        drop_connection: bool = False,
        phase: str = "before",
        preset: str | None = None,
        headers: dict[str, str] | None = None,
        hold: bool = False,
    ) -> int:
        rule = self.state.faults.add(
            path=path,
            method=method,
            status=status,
            times=times,
            retry_after=retry_after,
            latency_ms=latency_ms,
            body=body,
            drop_connection=drop_connection,
            phase=phase,
            preset=preset,
            headers=headers or {},
            hold=hold,
        )
        return rule.id

    def release_fault(self, fault_id: int) -> None:
        """Let the requests a `hold` fault keeps waiting go on."""
        self.state.faults.release(fault_id)

    def remove_fault(self, fault_id: int) -> bool:
        return self.state.faults.remove(fault_id)

    def clear_faults(self) -> None:
        self.state.faults.clear()

    def faults(self) -> list[dict[str, Any]]:
        return self.state.faults.list()

    def requests(self) -> list[dict[str, Any]]:
        return self.state.log.entries()

    def clear_requests(self) -> None:
        self.state.log.clear()

    def responses(self) -> list[dict[str, Any]]:
        return self.state.log.responses()

    def clear_responses(self) -> None:
        self.state.log.clear_responses()

    def record_responses(self, enabled: bool = True) -> None:
        self.state.log.record_responses = enabled

    def register_app(
        self,
        app_id: int | str,
        public_key_pem: str | bytes,
        installation_id: int,
        repos: list[str] | None = None,
        token_ttl_seconds: int = 3600,
        account: str | None = None,
    ) -> None:
        self.state.register_app(
            app_id, public_key_pem, installation_id, repos, token_ttl_seconds, account
        )

    def set_rate_limit(
        self,
        remaining: int,
        reset: int | None = None,
        resource: str = "core",
        login: str | None = None,
        limit: int | None = None,
    ) -> None:
        """Set what is left of a primary rate limit (resource: core, search, code_search,
        graphql), for one user or everyone; limit also changes the ceiling."""
        key = f"user:{login.lower()}" if login else None
        self.state.rate.set(remaining, reset=reset, resource=resource, key=key, limit=limit)

    def set_latency(self, latency_ms: int) -> None:
        self.state.latency_ms = latency_ms

    def snapshot(self, target: Path | str) -> Path:
        return self.state.snapshot(Path(target))

    def on_ref_update(self, hook: RefHook) -> RefHook:
        return self.state.on_ref_update(hook)
