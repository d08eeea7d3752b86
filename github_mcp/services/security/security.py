"""Code security alerts (code scanning, Dependabot, secret scanning) over the REST API, as
compact typed records.

A secret scanning alert is always asked for with hide_secret, and the records here have no
field for the secret: its value cannot reach an answer even if GitHub sends it.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

AlertKind = Literal["dependabot", "code_scanning", "secret_scanning"]
PATHS = {
    "dependabot": "dependabot",
    "code_scanning": "code-scanning",
    "secret_scanning": "secret-scanning",
}
# Reasons GitHub accepts when closing an alert, by kind (the body field differs too).
REASONS: dict[str, tuple[str, ...]] = {
    "dependabot": ("fix_started", "inaccurate", "no_bandwidth", "not_used", "tolerable_risk"),
    "code_scanning": ("false positive", "won't fix", "used in tests"),
    "secret_scanning": ("false_positive", "wont_fix", "revoked", "used_in_tests"),
}
HELP_BYTES = 4000


class AlertSummary(BaseModel):
    number: int
    state: str
    severity: str | None = None
    title: str
    where: str
    rule_id: str | None = Field(
        None, description="What raised it: the scanning rule, secret type or advisory (GHSA)."
    )
    tool: str | None = Field(None, description="The code scanning tool.")
    resolution: str | None = Field(None, description="Why a secret alert was resolved.")
    created_at: str


class AlertPage(BaseModel):
    kind: AlertKind
    alerts: list[AlertSummary]
    next_cursor: str | None = None


class CodeScanningDetail(BaseModel):
    rule_id: str | None = None
    tool: str | None = None
    ref: str | None = None
    commit_sha: str | None = None
    path: str | None = None
    start_line: int | None = None
    end_line: int | None = None
    message: str | None = None
    help: str | None = None
    help_truncated: bool = False


class DependencyDetail(BaseModel):
    package: str
    ecosystem: str
    manifest_path: str | None = None
    scope: str | None = None
    vulnerable_range: str | None = None
    patched_version: str | None = None
    ghsa_id: str | None = None
    cve_id: str | None = None


class SecretLocation(BaseModel):
    type: str
    path: str | None = None
    start_line: int | None = None
    commit_sha: str | None = None


class SecretDetail(BaseModel):
    secret_type: str
    validity: str | None = None
    locations: list[SecretLocation]


class SecurityAlert(BaseModel):
    kind: AlertKind
    summary: AlertSummary
    url: str
    dismissed_reason: str | None = None
    dismissed_comment: str | None = None
    dismissed_by: str | None = None
    code_scanning: CodeScanningDetail | None = None
    dependency: DependencyDetail | None = None
    secret: SecretDetail | None = None


def _text(value: Any, limit: int = 300) -> str:
    return cut_text(strip_invisible(str(value or "")), limit)[0]


def _summary(kind: str, item: dict[str, Any]) -> AlertSummary:
    if kind == "code_scanning":
        rule, where = item.get("rule") or {}, (item.get("most_recent_instance") or {})
        location = where.get("location") or {}
        severity = rule.get("security_severity_level") or rule.get("severity")
        title = rule.get("description") or rule.get("name") or ""
        spot = f"{location.get('path', '')}:{location.get('start_line', '')}"
        rule_id, tool = rule.get("id"), (item.get("tool") or {}).get("name")
    elif kind == "dependabot":
        advisory, dep = item.get("security_advisory") or {}, item.get("dependency") or {}
        severity, title = advisory.get("severity"), advisory.get("summary") or ""
        package = (dep.get("package") or {}).get("name", "")
        spot = f"{package} in {dep.get('manifest_path', '')}"
        rule_id, tool = advisory.get("ghsa_id"), None
    else:
        severity, title = None, item.get("secret_type_display_name") or ""
        spot = item.get("secret_type") or ""
        rule_id, tool = item.get("secret_type"), None
    return AlertSummary(
        number=int(item["number"]),
        state=str(item.get("state") or ""),
        severity=severity,
        title=_text(title),
        where=_text(spot, 200),
        rule_id=_text(rule_id, 200) or None,
        tool=_text(tool, 100) or None,
        resolution=_text(item.get("resolution"), 50) or None if kind == "secret_scanning" else None,
        created_at=str(item.get("created_at") or ""),
    )


def list_params(kind: str, filters: dict[str, str | None]) -> dict[str, str]:
    """The query GitHub takes for this kind; a filter the kind has not is refused."""
    accepted = {
        "code_scanning": {"state", "severity", "tool", "ref"},
        "dependabot": {"state", "severity", "ecosystem", "package"},
        "secret_scanning": {"state", "secret_type", "resolution"},
    }[kind]
    given = {k: v for k, v in filters.items() if v is not None}
    extra = sorted(set(given) - accepted)
    if extra:
        raise invalid_input(
            f"{kind} alerts cannot be filtered by {', '.join(extra)}",
            hint=f"{kind} filters: {', '.join(sorted(accepted))}",
        )
    query = {("tool_name" if k == "tool" else k): v for k, v in given.items() if v}
    if kind == "secret_scanning":
        query["hide_secret"] = "true"
    return query


async def list_alerts(
    github: GitHubClient,
    full_name: str,
    kind: str,
    filters: dict[str, str | None],
    *,
    limit: int,
    cursor: str | None,
) -> AlertPage:
    page = await github.paginate(
        f"{repo_path(full_name)}/{PATHS[kind]}/alerts",
        params=list_params(kind, filters),
        limit=limit,
        cursor=cursor,
        repo=full_name,
        after=kind == "dependabot",
    )
    found = [_summary(kind, item) for item in page.items]
    return AlertPage(kind=kind, alerts=found, next_cursor=page.next_cursor)


def _code_detail(item: dict[str, Any]) -> CodeScanningDetail:
    rule, where = item.get("rule") or {}, item.get("most_recent_instance") or {}
    location = where.get("location") or {}
    help_text, cut = cut_text(strip_invisible(rule.get("help") or ""), HELP_BYTES)
    return CodeScanningDetail(
        rule_id=rule.get("id"),
        tool=(item.get("tool") or {}).get("name"),
        ref=where.get("ref"),
        commit_sha=where.get("commit_sha"),
        path=location.get("path"),
        start_line=location.get("start_line"),
        end_line=location.get("end_line"),
        message=_text((where.get("message") or {}).get("text"), 1000) or None,
        help=help_text or None,
        help_truncated=cut,
    )


def _dependency_detail(item: dict[str, Any]) -> DependencyDetail:
    dep, advisory = item.get("dependency") or {}, item.get("security_advisory") or {}
    vulnerability = item.get("security_vulnerability") or {}
    package = dep.get("package") or {}
    patched = vulnerability.get("first_patched_version") or {}
    return DependencyDetail(
        package=str(package.get("name", "")),
        ecosystem=str(package.get("ecosystem", "")),
        manifest_path=dep.get("manifest_path"),
        scope=dep.get("scope"),
        vulnerable_range=vulnerability.get("vulnerable_version_range"),
        patched_version=patched.get("identifier"),
        ghsa_id=advisory.get("ghsa_id"),
        cve_id=advisory.get("cve_id"),
    )


def _location(entry: dict[str, Any]) -> SecretLocation:
    details = entry.get("details") or {}
    line = details.get("start_line")
    return SecretLocation(
        type=str(entry.get("type", "")),
        path=details.get("path"),
        start_line=int(line) if isinstance(line, int | float) else None,
        commit_sha=details.get("commit_sha"),
    )


async def get_alert(github: GitHubClient, full_name: str, kind: str, number: int) -> SecurityAlert:
    path = f"{repo_path(full_name)}/{PATHS[kind]}/alerts/{number}"
    params = {"hide_secret": "true"} if kind == "secret_scanning" else None
    item = await github.get_json(path, params=params, repo=full_name)
    alert = _alert(kind, item)
    if kind == "secret_scanning":
        page = await github.paginate(f"{path}/locations", limit=20, repo=full_name)
        secret = SecretDetail(
            secret_type=str(item.get("secret_type") or ""),
            validity=item.get("validity"),
            locations=[_location(e) for e in page.items],
        )
        alert = alert.model_copy(update={"secret": secret})
    return alert


def _alert(kind: str, item: dict[str, Any]) -> SecurityAlert:
    by = item.get("dismissed_by") or item.get("resolved_by") or {}
    alert = SecurityAlert(
        kind=kind,
        summary=_summary(kind, item),
        url=str(item.get("html_url") or ""),
        dismissed_reason=item.get("dismissed_reason") or item.get("resolution"),
        dismissed_comment=_text(
            item.get("dismissed_comment") or item.get("resolution_comment"), 280
        )
        or None,
        dismissed_by=by.get("login"),
    )
    if kind == "code_scanning":
        alert.code_scanning = _code_detail(item)
    elif kind == "dependabot":
        alert.dependency = _dependency_detail(item)
    return alert


def state_body(kind: str, state: str, reason: str | None, comment: str | None) -> dict[str, str]:
    """GitHub's PATCH body: a closed alert needs a reason from the kind's own list."""
    if state == "open":
        if reason or comment:
            raise invalid_input(
                "a reason or comment is only for dismissing",
                hint="Leave reason and comment out when reopening an alert (state='open').",
            )
        return {"state": "open"}
    if reason not in REASONS[kind]:
        raise invalid_input(
            f"dismissing a {kind} alert needs a reason",
            hint=f"reason: one of {', '.join(REASONS[kind])}",
        )
    if kind == "secret_scanning":
        body = {"state": "resolved", "resolution": reason}
        return body | ({"resolution_comment": comment} if comment else {})
    body = {"state": "dismissed", "dismissed_reason": reason}
    return body | ({"dismissed_comment": comment} if comment else {})


async def set_state(
    github: GitHubClient,
    full_name: str,
    kind: str,
    number: int,
    body: dict[str, str],
) -> SecurityAlert:
    path = f"{repo_path(full_name)}/{PATHS[kind]}/alerts/{number}"
    item = await github.request_json("PATCH", path, json_body=body)
    return _alert(kind, item)
