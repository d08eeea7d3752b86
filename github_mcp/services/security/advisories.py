"""Security advisories over the REST API: GitHub's global database, a repository's, and an
organisation's repositories' advisories, as compact typed records."""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

REPO_IN_URL = re.compile(r"/repos/([^/]+/[^/]+)/security-advisories/")


class AffectedPackage(BaseModel):
    ecosystem: str
    name: str
    vulnerable_range: str | None = None
    patched: str | None = None


class Advisory(BaseModel):
    ghsa_id: str
    cve_id: str | None = None
    summary: str
    severity: str | None = None
    state: str | None = None
    repository: str | None = None
    packages: list[AffectedPackage]
    published_at: str | None = None
    url: str


class AdvisoryPage(BaseModel):
    advisories: list[Advisory]
    next_cursor: str | None = None


def _package(entry: dict[str, Any]) -> AffectedPackage:
    package = entry.get("package") or {}
    patched = entry.get("first_patched_version", entry.get("patched_versions"))
    if isinstance(patched, dict):
        patched = patched.get("identifier")
    return AffectedPackage(
        ecosystem=str(package.get("ecosystem", "")),
        name=str(package.get("name", "")),
        vulnerable_range=entry.get("vulnerable_version_range"),
        patched=patched,
    )


def _advisory(item: dict[str, Any]) -> Advisory:
    found = REPO_IN_URL.search(str(item.get("url") or ""))
    return Advisory(
        ghsa_id=str(item["ghsa_id"]),
        cve_id=item.get("cve_id"),
        summary=cut_text(strip_invisible(str(item.get("summary") or "")), 300)[0],
        severity=item.get("severity"),
        state=item.get("state"),
        repository=found.group(1) if found else None,
        packages=[_package(v) for v in item.get("vulnerabilities") or []],
        published_at=item.get("published_at"),
        url=str(item.get("html_url") or ""),
    )


async def global_advisories(
    github: GitHubClient, filters: dict[str, str | None], *, limit: int, cursor: str | None
) -> AdvisoryPage:
    params = {k: v for k, v in filters.items() if v}
    page = await github.paginate(
        "/advisories", params=params, limit=limit, cursor=cursor, after=True
    )
    found = [_advisory(i) for i in page.items]
    return AdvisoryPage(advisories=found, next_cursor=page.next_cursor)


async def repository_advisories(
    github: GitHubClient,
    *,
    full_name: str | None,
    org: str | None,
    state: str | None,
    limit: int,
    cursor: str | None,
) -> AdvisoryPage:
    if full_name:
        path = f"{repo_path(full_name)}/security-advisories"
    else:
        path = f"/orgs/{encode_path(org or '')}/security-advisories"
    params = {"state": state} if state else None
    page = await github.paginate(
        path, params=params, limit=limit, cursor=cursor, repo=full_name, after=True
    )
    found = [_advisory(i) for i in page.items]
    return AdvisoryPage(advisories=found, next_cursor=page.next_cursor)
