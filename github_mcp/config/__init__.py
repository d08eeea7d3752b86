"""Settings: every environment variable the server reads, typed and documented.

The fields are declared by capability in config/fields/ and composed here, with the
validators and the derived values. `docs/CONFIG.md` is generated from this class
(`python main.py docs`); a test fails when it is stale.
"""

from __future__ import annotations

import json
from functools import cached_property

from pydantic import field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from github_mcp.config.fields import DEFAULT_TOOLS as DEFAULT_TOOLS
from github_mcp.config.fields import DEFAULT_TOOLSETS as DEFAULT_TOOLSETS
from github_mcp.config.fields import TOOLSETS as TOOLSETS
from github_mcp.config.fields import (
    CacheSettings,
    GitHubAccessSettings,
    HostedSignInSettings,
    HttpTransportSettings,
    ToolSurfaceSettings,
    WorkspaceSettings,
    WritePolicySettings,
)
from github_mcp.config.fields import Toolset as Toolset


def _split_csv(value: str) -> list[str]:
    return [part.strip() for part in value.split(",") if part.strip()]


_WORDS = {"all", "default"}


def listed_toolsets(value: str, registered: tuple[str, ...]) -> frozenset[str]:
    """What a GITHUB_MCP_TOOLSETS-style value lists among the registered toolsets: `all`,
    `default` (DEFAULT_TOOLSETS, the rule for any toolset not named there being "not
    listed"), names, or both; unknown names are ignored here (the setting refuses them)."""
    wanted = set(_split_csv(value.lower())) or {"default"}
    if "all" in wanted:
        return frozenset(registered)
    if "default" in wanted:
        wanted |= {t.value for t in DEFAULT_TOOLSETS}
    return frozenset(t for t in registered if t in wanted)


def listed_tools(value: str) -> frozenset[str]:
    """The single tools a GITHUB_MCP_TOOLSETS-style value lists beyond its toolsets: the
    default list's DEFAULT_TOOLS when it says `default` (or nothing)."""
    wanted = set(_split_csv(value.lower())) or {"default"}
    return DEFAULT_TOOLS if "default" in wanted else frozenset()


class Settings(
    # pydantic lists inherited fields base-first: the last mixin's fields come first, so the
    # generated docs/CONFIG.md keeps the sections in this (reversed) order
    HostedSignInSettings,
    HttpTransportSettings,
    CacheSettings,
    WorkspaceSettings,
    WritePolicySettings,
    ToolSurfaceSettings,
    GitHubAccessSettings,
    BaseSettings,
):
    """Server configuration, read from the environment (and an optional `.env`)."""

    # built at import; the mixins defer theirs, which nothing validates on its own
    model_config = SettingsConfigDict(
        env_file=".env", extra="ignore", populate_by_name=True, frozen=True, defer_build=False
    )

    def with_overrides(self, **values: object) -> Settings:
        """A fresh Settings with some fields replaced (derived values recomputed)."""
        data = {name: getattr(self, name) for name in type(self).model_fields}
        data.update(values)
        return type(self)(**data)

    @field_validator("github_api_url")
    @classmethod
    def _strip_slash(cls, value: str) -> str:
        return value.rstrip("/")

    @field_validator("toolsets")
    @classmethod
    def _known_toolsets(cls, value: str) -> str:
        unknown = [n for n in _split_csv(value.lower()) if n not in _WORDS and n not in TOOLSETS]
        if unknown:
            raise ValueError(
                f"unknown toolset(s) {', '.join(unknown)}; "
                f"valid: all, default, {', '.join(TOOLSETS)}"
            )
        return value

    # --- Derived values ------------------------------------------------------
    @cached_property
    def graphql_url(self) -> str:
        if self.github_graphql_url:
            return self.github_graphql_url
        base = self.github_api_url
        if base.endswith("/api/v3"):
            return base[: -len("/v3")] + "/graphql"
        return base + "/graphql"

    @cached_property
    def web_base_url(self) -> str:
        """Where clone URLs and html links live, derived from the API host."""
        base = self.github_api_url
        if base == "https://api.github.com":
            return "https://github.com"
        if base.endswith("/api/v3"):
            return base[: -len("/api/v3")]
        return base

    @cached_property
    def toolset_list(self) -> tuple[str, ...]:
        """The registered toolsets (callable): every one, unless only names are given."""
        wanted = _split_csv(self.toolsets.lower())
        if not wanted or _WORDS & set(wanted):
            return TOOLSETS
        return tuple(t for t in TOOLSETS if t in wanted)

    @cached_property
    def listed_toolsets(self) -> frozenset[str]:
        """The toolsets a session lists before it enables more (GITHUB_MCP_TOOLS=all)."""
        return listed_toolsets(self.toolsets, self.toolset_list)

    @cached_property
    def listed_tools(self) -> frozenset[str]:
        """Single tools listed beyond the toolsets (the default list's DEFAULT_TOOLS)."""
        return listed_tools(self.toolsets)

    @cached_property
    def allowlist(self) -> tuple[str, ...]:
        return tuple(entry.lower() for entry in _split_csv(self.repo_allowlist))

    @cached_property
    def protected_globs(self) -> tuple[str, ...]:
        return tuple(_split_csv(self.protected_branches))

    @cached_property
    def repo_default_overrides(self) -> dict[str, str]:
        if not self.github_repo_defaults.strip():
            return {}
        try:
            data = json.loads(self.github_repo_defaults)
        except json.JSONDecodeError as exc:
            raise ValueError("GITHUB_REPO_DEFAULTS must be a JSON object") from exc
        if not isinstance(data, dict):
            raise ValueError("GITHUB_REPO_DEFAULTS must be a JSON object")
        return {str(k).lower(): str(v) for k, v in data.items()}

    @cached_property
    def bearer_tokens(self) -> tuple[str, ...]:
        if self.auth_tokens is None:
            return ()
        return tuple(_split_csv(self.auth_tokens.get_secret_value()))

    @property
    def has_github_credentials(self) -> bool:
        app = (
            self.github_app_id
            and self.github_app_installation_id
            and (self.github_app_private_key or self.github_app_private_key_path)
        )
        return bool(self.github_token or app)

    @cached_property
    def allowed_user_set(self) -> frozenset[str]:
        return frozenset(u.lower() for u in _split_csv(self.allowed_users))

    @cached_property
    def allowed_org_set(self) -> frozenset[str]:
        return frozenset(o.lower() for o in _split_csv(self.allowed_orgs))
