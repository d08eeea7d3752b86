"""Code security: a repository's Dependabot, code scanning and secret scanning alerts
(list, get, dismiss or reopen) and security advisories (global, repository, organisation).

Reads only, except set_security_alert_state: closing an alert hides a risk from everyone
who works the repository and moves no branch, so it is an unscoped write a human approves.
A secret scanning alert never carries the secret's value (services/security/security.py).

GitHub Code Quality findings: read-only, in the code_security toolset, inside the
repository allow-list.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services.security import advisories as advisory_service
from github_mcp.services.security import code_quality as quality_service
from github_mcp.services.security import security as service
from github_mcp.services.security.advisories import AdvisoryPage
from github_mcp.services.security.code_quality import QualityFinding, QualityPage
from github_mcp.services.security.security import AlertKind, AlertPage, SecurityAlert

TOOLSET = "code_security"
Number = Annotated[int, Field(ge=1, le=10_000_000)]
Short = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[^\s,]+$")]
Slug = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9][A-Za-z0-9-]*$")]
SecretTypes = Annotated[str, Field(max_length=500, pattern=r"^[\w.,-]+$")]
SecretResolution = Literal[
    "false_positive", "wont_fix", "revoked", "pattern_edited", "pattern_deleted", "used_in_tests"
]
Severity = Literal["critical", "high", "medium", "low", "error", "warning", "note"]
Reason = Literal[
    "fix_started",
    "inaccurate",
    "no_bandwidth",
    "not_used",
    "tolerable_risk",
    "false positive",
    "won't fix",
    "used in tests",
    "false_positive",
    "wont_fix",
    "revoked",
    "used_in_tests",
]


@tool(toolset=TOOLSET)
async def list_security_alerts(
    call: Call,
    full_name: FullName,
    kind: AlertKind,
    state: Literal["open", "closed", "dismissed", "fixed", "resolved"] | None = None,
    severity: Severity | None = None,
    tool: Short | None = None,
    ref: Annotated[str, Field(min_length=1, max_length=255)] | None = None,
    ecosystem: Short | None = None,
    package: Short | None = None,
    secret_type: SecretTypes | None = None,
    resolution: SecretResolution | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> AlertPage:
    """A repository's alerts of one kind, newest first; each filter fits one kind."""
    filters = {"state": state, "severity": severity, "tool": tool, "ref": ref}
    filters |= {"ecosystem": ecosystem, "package": package}
    filters |= {"secret_type": secret_type, "resolution": resolution}
    return await service.list_alerts(
        call.rt.github, full_name, kind, filters, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET)
async def get_security_alert(
    call: Call, full_name: FullName, kind: AlertKind, number: Number
) -> SecurityAlert:
    """One alert with its rule's help and location, vulnerable range and patched version,
    or secret type and locations."""
    return await service.get_alert(call.rt.github, full_name, kind, number)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly("it sets the named alert's state, with the reason and comment given"),
)
async def set_security_alert_state(
    call: Call,
    full_name: FullName,
    kind: AlertKind,
    number: Number,
    state: Literal["dismissed", "open"],
    reason: Reason | None = None,
    comment: Annotated[str, Field(max_length=280)] | None = None,
) -> SecurityAlert:
    """Dismiss an alert with a reason GitHub accepts for its kind, or reopen it."""
    body = service.state_body(kind, state, reason, comment)
    return await service.set_state(call.rt.github, full_name, kind, number, body)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_global_advisories(
    call: Call,
    ecosystem: Short | None = None,
    severity: Literal["critical", "high", "medium", "low"] | None = None,
    cve_id: Annotated[str, Field(pattern=r"^CVE-\d{4}-\d{4,}$")] | None = None,
    ghsa_id: Annotated[str, Field(pattern=r"^GHSA(-[23456789cfghjmpqrvwx]{4}){3}$")] | None = None,
    package: Short | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> AdvisoryPage:
    """Reviewed advisories in GitHub's advisory database, newest first."""
    filters = {"ecosystem": ecosystem, "severity": severity, "cve_id": cve_id}
    filters |= {"ghsa_id": ghsa_id, "affects": package}
    return await advisory_service.global_advisories(
        call.rt.github, filters, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET)
async def list_repository_advisories(
    call: Call,
    full_name: FullName | None = None,
    org: Slug | None = None,
    state: Literal["triage", "draft", "published", "closed"] | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> AdvisoryPage:
    """Security advisories of one repository (full_name) or an organisation's (org)."""
    if (full_name is None) == (org is None):
        raise invalid_input(
            "give full_name or org, not both", hint="full_name=owner/repo or org=login"
        )
    page = await advisory_service.repository_advisories(
        call.rt.github, full_name=full_name, org=org, state=state, limit=limit, cursor=cursor
    )
    # an organisation's list leaves out repositories outside the allow-list
    kept = [
        a
        for a in page.advisories
        if full_name or (a.repository and call.rt.gate.repo_allowed(a.repository))
    ]
    return page.model_copy(update={"advisories": kept})


@tool(toolset=TOOLSET)
async def list_code_quality_findings(
    call: Call, full_name: FullName, limit: Limit = 30, cursor: Cursor | None = None
) -> QualityPage:
    """A repository's Code Quality findings, newest first."""
    return await quality_service.list_findings(
        call.rt.github, full_name, limit=limit, cursor=cursor
    )


@tool(toolset=TOOLSET)
async def get_code_quality_finding(
    call: Call, full_name: FullName, number: Annotated[int, Field(ge=1)]
) -> QualityFinding:
    """One Code Quality finding: its rule, location and message."""
    return await quality_service.get_finding(call.rt.github, full_name, number)
