"""Settings fields: GitHub access (credentials, endpoints, request limits) and the tool surface
(toolsets, core listing, read-only, lockdown).
Mixed into `Settings` in github_mcp/config/__init__.py."""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field, SecretStr
from pydantic_settings import BaseSettings, SettingsConfigDict


class Toolset(StrEnum):
    """The groups tools are registered in; GITHUB_MCP_TOOLSETS picks among them."""

    META = "meta"
    REPOS = "repos"
    FILES = "files"
    WRITES = "writes"
    ISSUES = "issues"
    PULL_REQUESTS = "pull_requests"
    ACTIONS = "actions"
    AUTOMATION = "automation"
    WORKSPACE = "workspace"
    SEARCH = "search"
    # Breadth beyond code and review: off the default list, enabled on request.
    RELEASES = "releases"
    LABELS = "labels"
    PEOPLE = "people"
    STARS = "stars"
    GISTS = "gists"
    CODE_SECURITY = "code_security"
    REACTIONS = "reactions"
    NOTIFICATIONS = "notifications"
    PULL_REQUEST_REVIEWS = "pull_request_reviews"
    ISSUE_PLANNING = "issue_planning"
    PROJECTS = "projects"
    DISCUSSIONS = "discussions"
    COPILOT = "copilot"
    BLAME = "blame"
    REPO_ADMIN = "repo_admin"

    @classmethod
    def parse(cls, name: str) -> Toolset:
        """The toolset called `name`; ValueError naming the valid ones otherwise."""
        try:
            return cls(name)
        except ValueError:
            raise ValueError(f"unknown toolset {name!r}; valid: {', '.join(TOOLSETS)}") from None


TOOLSETS: tuple[str, ...] = tuple(t.value for t in Toolset)
# Listed when GITHUB_MCP_TOOLSETS is `default` (its default), after the official GitHub
# server's default set (context, repos, issues, pull_requests, users): read a repository,
# change it, work an issue or a PR to its merge. Every other toolset (Actions, workspace)
# and any added later is listed only on request (enable_toolset, the setting, or a hosted
# URL or header); tests/perf/test_tool_catalog.py holds the list to its byte budget.
DEFAULT_TOOLSETS: frozenset[Toolset] = frozenset(
    {
        Toolset.META,
        Toolset.REPOS,
        Toolset.FILES,
        Toolset.WRITES,
        Toolset.ISSUES,
        Toolset.PULL_REQUESTS,
        Toolset.AUTOMATION,
        Toolset.SEARCH,
    }
)


# Listed by default too, from toolsets that are not: the five most common tasks of each
# area an agent meets often enough that finding its tools first would cost a call every
# time (tests/perf/test_tool_catalog.py keeps the default list within its byte budget).
DEFAULT_TOOLS: frozenset[str] = frozenset(
    {
        # releases: list them, read one (by tag) or the latest, draft one, publish a draft
        "list_releases",
        "get_release",
        "draft_release",
        "publish_release",
        # notifications: list unread (or those you take part in), read one, mark one read
        # or done, mark all read
        "list_notifications",
        "get_notification_details",
        "dismiss_notification",
        "mark_all_notifications_read",
        # projects: list them, read one's fields, list its items, add an item, set a field
        "list_projects",
        "get_project",
        "list_project_items",
        "add_project_item",
        "update_project_item_field",
        # sub-issues: list, add, remove, reorder; what blocks an issue
        "list_sub_issues",
        "change_sub_issue",
        "get_issue_dependencies",
        # security alerts: list (Dependabot, code scanning, secret scanning), read one,
        # dismiss or reopen
        "list_security_alerts",
        "get_security_alert",
        "set_security_alert_state",
    }
)


def env(name: str, *more: str) -> AliasChoices:
    return AliasChoices(name, *more)


class GitHubAccessSettings(BaseSettings):
    """How the server reaches GitHub: credentials, endpoints, limits."""

    model_config = SettingsConfigDict(populate_by_name=True)  # as Settings: by name too

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

    model_config = SettingsConfigDict(populate_by_name=True)  # as Settings: by name too

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
