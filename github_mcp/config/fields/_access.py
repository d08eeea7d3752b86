"""Settings fields: GitHub access (credentials, endpoints, request limits) and the tool surface
(toolsets, core listing, read-only, lockdown).
Mixed into `Settings` in github_mcp/config/__init__.py."""

from __future__ import annotations

import tomllib
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict

# The toolsets are declared as data in the catalog (github_mcp/catalog/toolsets.toml: id,
# description, default flag); the settings read their vocabulary from that file, not from
# the catalog's code, which sits above them.
TOOLSETS_FILE = Path(__file__).resolve().parents[2] / "catalog" / "toolsets.toml"
DECLARED: dict[str, Any] = tomllib.loads(TOOLSETS_FILE.read_text(encoding="utf-8"))


class Toolset(StrEnum):
    """The groups tools are registered in; GITHUB_MCP_TOOLSETS picks among them. One
    member per toolset of the catalog's toolsets.toml, named as its id in capitals."""

    _ignore_ = "_declared"
    for _declared in DECLARED["toolset"]:
        vars()[str(_declared["id"]).upper()] = str(_declared["id"])

    @classmethod
    def parse(cls, name: str) -> Toolset:
        """The toolset called `name`; ValueError naming the valid ones otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown toolset {name!r}; valid: {', '.join(TOOLSETS)}") from None


TOOLSETS: tuple[str, ...] = tuple(t.value for t in Toolset)
# listed when GITHUB_MCP_TOOLSETS is `default` (its default): toolsets.toml says why
DEFAULT_TOOLSETS: frozenset[Toolset] = frozenset(
    Toolset(t["id"]) for t in DECLARED["toolset"] if t["default"]
)
# listed by default too, from toolsets that are not (toolsets.toml, [default_tools])
DEFAULT_TOOLS: frozenset[str] = frozenset(DECLARED["default_tools"]["tools"])


def env(name: str, *more: str) -> AliasChoices:
    return AliasChoices(name, *more)


class GitHubAccessSettings(BaseSettings):
    """How the server reaches GitHub: credentials, endpoints, limits."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    github_token: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_TOKEN", "GITHUB_PAT"),
        description="Personal access token (classic, fine-grained or OAuth). "
        "`GITHUB_PAT` is accepted as an alias.",
    )
    github_app_id: str | None = Field(
        None, validation_alias=env("GITHUB_APP_ID"), description="GitHub App ID."
    )
    github_app_installation_id: str | None = Field(
        None,
        validation_alias=env("GITHUB_APP_INSTALLATION_ID"),
        description="Installation ID of the GitHub App on the target account.",
    )
    github_app_private_key_path: Path | None = Field(
        None,
        validation_alias=env("GITHUB_APP_PRIVATE_KEY_PATH"),
        description="Path to the App's PEM private key.",
    )
    github_app_private_key: SecretStr | None = Field(
        None,
        validation_alias=env("GITHUB_APP_PRIVATE_KEY"),
        description="The App's PEM private key inline (takes precedence over the path).",
    )
    github_api_url: str = Field(
        "https://api.github.com",
        validation_alias=env("GITHUB_API_URL"),
        description="REST base URL. GitHub Enterprise Server: `https://HOST/api/v3`.",
    )
    github_graphql_url: str | None = Field(
        None,
        validation_alias=env("GITHUB_GRAPHQL_URL"),
        description="GraphQL endpoint; derived from the API URL when unset.",
    )
    github_api_version: str = Field(
        "2022-11-28",
        validation_alias=env("GITHUB_API_VERSION"),
        description="Value of the `X-GitHub-Api-Version` header.",
    )
    github_max_concurrency: int = Field(
        10,
        ge=1,
        le=100,
        validation_alias=env("GITHUB_MAX_CONCURRENCY"),
        description=(
            "Most GitHub requests in flight at once, per event loop (the server runs one, "
            "so per server process)."
        ),
    )
    github_max_retry_wait: float = Field(
        30.0,
        ge=0,
        validation_alias=env("GITHUB_MAX_RETRY_WAIT"),
        description="Longest `Retry-After` (seconds) the client waits before retrying; "
        "a longer one returns `rate_limited`.",
    )
    github_request_timeout: float = Field(
        30.0,
        gt=0,
        validation_alias=env("GITHUB_REQUEST_TIMEOUT"),
        description="Per-request timeout in seconds.",
    )
    completion_budget_seconds: float = Field(
        2.0,
        gt=0,
        validation_alias=env("GITHUB_MCP_COMPLETION_BUDGET_SECONDS"),
        description="How long `completion/complete` may wait for GitHub before it answers "
        "with what it has (a keystroke's help is worth little once it is late).",
    )
    github_repo_defaults: str = Field(
        "",
        validation_alias=env("GITHUB_REPO_DEFAULTS"),
        description='JSON object overriding default branches, e.g. `{"o/r": "develop"}`.',
    )


class ToolSurfaceSettings(BaseSettings):
    """Which tools are listed and how much untrusted text they show."""

    model_config = SettingsConfigDict(populate_by_name=True, defer_build=True)  # see Settings

    toolsets: str = Field(
        "default",
        validation_alias=env("GITHUB_MCP_TOOLSETS"),
        description="Toolsets listed to the model, comma-separated. `default` lists "
        + ", ".join(sorted(DEFAULT_TOOLSETS))
        + " and the most used tools of releases, notifications, projects, sub-issues and "
        "security alerts, and keeps the others registered behind `find_tools` (which can "
        "list what it finds) and `enable_toolset`; "
        "`all` lists every toolset; names alone (e.g. `repos,actions`) register only "
        "those; `default,actions` adds to the default. Known: " + ", ".join(TOOLSETS) + ".",
    )
    tools: Literal["all", "core"] = Field(
        "all",
        validation_alias=env("GITHUB_MCP_TOOLS"),
        description="`core`: every session first lists a small core set plus `find_tools` "
        "and `enable_toolset`; enabling a toolset lists it for that session and sends "
        "`notifications/tools/list_changed` (the server declares `tools.listChanged`). "
        "`all`: the toolsets of GITHUB_MCP_TOOLSETS.",
    )
    output_schemas: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_OUTPUT_SCHEMAS"),
        description="List each tool's output schema in tools/list. Off: no common client "
        "shows output schemas to the model (it reads the result), so they cost bytes on "
        "every listing; `describe_tool` gives them on demand. Results are structured either "
        "way.",
    )
    read_only: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_READ_ONLY"),
        description="When true, write tools are not registered at all.",
    )
    lockdown: bool = Field(
        False,
        validation_alias=env("GITHUB_MCP_LOCKDOWN"),
        description="When true, issue, pull request, review and comment text written by "
        "authors without push access (association other than OWNER, MEMBER or "
        "COLLABORATOR) is withheld behind a note naming the author.",
    )
