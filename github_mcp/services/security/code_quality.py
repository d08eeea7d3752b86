"""GitHub Code Quality findings over the REST API (GET /repos/{o}/{r}/code-quality/findings
and …/findings/{n}), as compact records. A repository without Code Quality set up, or a
caller who may not see it, gets GitHub's 403; the rule text and message are untrusted
(strip_invisible, cut to size) and the help text is left to the URL."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path


class QualityFinding(BaseModel):
    number: int
    state: str
    rule: str = Field(description="rule id")
    title: str
    severity: str
    category: str
    path: str
    start_line: int | None = None
    end_line: int | None = None
    message: str
    description: str | None = Field(None, description="The rule's; in get only.")
    url: str


class QualityPage(BaseModel):
    findings: list[QualityFinding]
    next_cursor: str | None = None


def _text(value: Any, limit: int) -> str:
    return cut_text(strip_invisible(str(value or "")), limit)[0]


def finding(item: dict[str, Any], full: bool) -> QualityFinding:
    rule, where = item.get("rule") or {}, item.get("location") or {}
    return QualityFinding(
        number=item["number"],
        state=item["state"],
        rule=_text(rule.get("id"), 200),
        title=_text(rule.get("title"), 200),
        severity=rule.get("severity") or "none",
        category=rule.get("category") or "none",
        path=_text(where.get("path"), 500),
        start_line=where.get("start_line"),
        end_line=where.get("end_line"),
        message=_text((item.get("message") or {}).get("text"), 1000 if full else 300),
        description=_text(rule.get("description"), 1000) or None if full else None,
        url=item["url"],
    )


def _not_set_up(exc: GitHubMCPError, full_name: str) -> GitHubMCPError:
    if exc.code not in (ErrorCode.FORBIDDEN, ErrorCode.PERMISSION_DENIED):
        return exc
    return GitHubMCPError(
        exc.code,
        f"Code Quality is not available for {full_name}",
        hint="It must be set up for the repository (Settings, Code quality) and the token "
        "needs the repo scope (public_repo for public repositories).",
    )


async def get_finding(github: GitHubClient, full_name: str, number: int) -> QualityFinding:
    path = f"{repo_path(full_name)}/code-quality/findings/{number}"
    try:
        return finding(await github.request_json("GET", path), full=True)
    except GitHubMCPError as exc:
        raise _not_set_up(exc, full_name) from exc


async def list_findings(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> QualityPage:
    path = f"{repo_path(full_name)}/code-quality/findings"
    try:
        page = await github.paginate(path, limit=limit, cursor=cursor, repo=full_name)
    except GitHubMCPError as exc:
        raise _not_set_up(exc, full_name) from exc
    found = [finding(i, full=False) for i in page.items]
    return QualityPage(findings=found, next_cursor=page.next_cursor)
