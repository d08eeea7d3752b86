"""The Runtime: one object holding the settings and the live services a tool needs."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .audit import AuditLog
from .cache import Cache
from .config import Settings
from .gate import WriteGate
from .github.auth import AnonymousAuth, AppAuth, Credentials, TokenAuth
from .github.client import GitHubClient
from .observability import Metrics, log_event

if TYPE_CHECKING:
    from .registry import ToolSpec

VERSION = "0.1.0"


def _app_key(settings: Settings) -> str | None:
    if settings.github_app_private_key:
        return settings.github_app_private_key.get_secret_value()
    if settings.github_app_private_key_path:
        return Path(settings.github_app_private_key_path).read_text()
    return None


@dataclass
class Runtime:
    settings: Settings
    metrics: Metrics
    cache: Cache
    github: GitHubClient
    gate: WriteGate
    audit: AuditLog
    started_at: float = field(default_factory=time.time)
    bound_specs: dict[str, ToolSpec] = field(default_factory=dict)
    tool_schemas: dict[str, tuple[dict[str, Any], dict[str, Any] | None]] = field(
        default_factory=dict
    )
    services: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def create(cls, settings: Settings, *, retry_base_delay: float = 0.5) -> Runtime:
        metrics = Metrics()
        cache = Cache(settings.cache_max_entries, metrics)
        credentials: Credentials = AnonymousAuth()
        github = GitHubClient(
            settings, metrics, cache, credentials, retry_base_delay=retry_base_delay
        )
        key = _app_key(settings)
        if settings.github_app_id and settings.github_app_installation_id and key:
            github.credentials = AppAuth(
                settings.github_app_id, settings.github_app_installation_id, key, github.raw_post
            )
        elif settings.github_token:
            github.credentials = TokenAuth(settings.github_token.get_secret_value())
        log_event(
            "github_credentials",
            kind=github.credentials.kind,
            api_url=settings.github_api_url,
        )
        rt_holder: dict[str, Runtime] = {}

        async def default_branch_of(full_name: str) -> str:
            from .services.repos import default_branch

            return await default_branch(rt_holder["rt"].github, full_name)

        gate = WriteGate(settings, metrics, default_branch_of)
        audit = AuditLog(settings.audit_log)
        rt = cls(
            settings=settings, metrics=metrics, cache=cache, github=github, gate=gate, audit=audit
        )
        rt_holder["rt"] = rt
        return rt

    @property
    def token_kind(self) -> str:
        return self.github.credentials.kind

    def invalidate_repo(self, full_name: str) -> int:
        return self.cache.invalidate_repo(full_name)

    async def aclose(self) -> None:
        await self.github.aclose()
