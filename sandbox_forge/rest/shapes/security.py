"""JSON shapes of code security alerts and advisories, by GitHub's OpenAPI description."""

from __future__ import annotations

from typing import Any

from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.security import Advisory, Alert
from sandbox_forge.stores.state import ForgeState


def _when(ts: float | None) -> str | None:
    return iso(ts) if ts is not None else None


def _user(state: ForgeState, urls: Urls, login: str | None) -> dict[str, Any] | None:
    user = state.user(login) if login else None
    return simple_user(urls, user) if user is not None else None


def _alert_urls(urls: Urls, repo: RepoRecord, alert: Alert) -> dict[str, str]:
    web = {"code-scanning": "security/code-scanning", "dependabot": "security/dependabot"}
    page = web.get(alert.kind, "security/secret-scanning")
    return {
        "url": f"{urls.repo(repo.full_name)}/{alert.kind}/alerts/{alert.number}",
        "html_url": f"{urls.repo_html(repo.full_name)}/{page}/{alert.number}",
    }


def _dismissal(state: ForgeState, urls: Urls, alert: Alert) -> dict[str, Any]:
    return {
        "dismissed_by": _user(state, urls, alert.dismissed_by),
        "dismissed_at": _when(alert.dismissed_at),
        "dismissed_reason": alert.dismissed_reason,
        "dismissed_comment": alert.dismissed_comment,
    }


def code_scanning_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, alert: Alert, full: bool
) -> dict[str, Any]:
    rule: dict[str, Any] = {
        "id": alert.rule.get("id"),
        "name": alert.rule.get("name") or "",
        "severity": alert.rule.get("severity"),
        "security_severity_level": alert.rule.get("security_severity_level"),
        "description": alert.rule.get("description") or "",
        "tags": ["security"],
    }
    if full:  # the list answers a rule summary; the alert itself has the help
        rule |= {
            "full_description": alert.rule.get("full_description") or "",
            "help": alert.rule.get("help"),
            "help_uri": alert.rule.get("help_uri"),
        }
    links = _alert_urls(urls, repo, alert)
    return {
        "number": alert.number,
        "created_at": iso(alert.created_at),
        "updated_at": iso(alert.updated_at),
        **links,
        "instances_url": f"{links['url']}/instances",
        "state": alert.state,
        "fixed_at": None,
        **_dismissal(state, urls, alert),
        "rule": rule,
        "tool": {"name": alert.tool, "guid": None, "version": "2.19.3"},
        "most_recent_instance": {
            "ref": alert.ref,
            "analysis_key": ".github/workflows/codeql.yml:analyze",
            "environment": "{}",
            "category": ".github/workflows/codeql.yml:analyze",
            "state": alert.state,
            "commit_sha": alert.commit_sha,
            "message": {"text": alert.message},
            "location": {
                "path": alert.path,
                "start_line": alert.start_line,
                "end_line": alert.end_line,
                "start_column": 1,
                "end_column": 1,
            },
            "classifications": [],
        },
    }


def _package(advisory: Advisory) -> dict[str, str]:
    return {"ecosystem": advisory.ecosystem, "name": advisory.package}


def _identifiers(advisory: Advisory) -> list[dict[str, str]]:
    found = [{"value": advisory.ghsa_id, "type": "GHSA"}]
    if advisory.cve_id:
        found.append({"value": advisory.cve_id, "type": "CVE"})
    return found


def _cwes(advisory: Advisory) -> list[dict[str, str]]:
    return [{"cwe_id": cwe, "name": name} for cwe, name in advisory.cwes]


def _vulnerability(advisory: Advisory) -> dict[str, Any]:
    patched = {"identifier": advisory.patched} if advisory.patched else None
    return {
        "package": _package(advisory),
        "severity": advisory.severity,
        "vulnerable_version_range": advisory.vulnerable_range,
        "first_patched_version": patched,
    }


def dependabot_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, alert: Alert
) -> dict[str, Any]:
    advisory = alert.advisory
    assert advisory is not None
    return {
        "number": alert.number,
        "state": alert.state,
        "dependency": {
            "package": _package(advisory),
            "manifest_path": alert.manifest,
            "scope": alert.scope,
            "relationship": "direct",
        },
        "security_advisory": {
            "ghsa_id": advisory.ghsa_id,
            "cve_id": advisory.cve_id,
            "summary": advisory.summary,
            "description": advisory.description,
            "vulnerabilities": [_vulnerability(advisory)],
            "severity": advisory.severity,
            "cvss": {"score": advisory.cvss_score, "vector_string": advisory.cvss_vector},
            "cwes": _cwes(advisory),
            "identifiers": _identifiers(advisory),
            "references": [{"url": url} for url in advisory.references],
            "published_at": iso(advisory.published_at),
            "updated_at": iso(advisory.published_at),
            "withdrawn_at": None,
        },
        "security_vulnerability": _vulnerability(advisory),
        **_alert_urls(urls, repo, alert),
        "created_at": iso(alert.created_at),
        "updated_at": iso(alert.updated_at),
        **_dismissal(state, urls, alert),
        "fixed_at": _when(alert.fixed_at),
        "auto_dismissed_at": None,
    }


def secret_location_json(urls: Urls, repo: RepoRecord, alert: Alert) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    return {
        "type": "commit",
        "details": {
            "path": alert.path,
            "start_line": alert.start_line,
            "end_line": alert.end_line,
            "start_column": 1,
            "end_column": 1 + len(alert.secret),
            "blob_sha": alert.blob_sha,
            "blob_url": f"{api}/git/blobs/{alert.blob_sha}",
            "commit_sha": alert.commit_sha,
            "commit_url": f"{api}/git/commits/{alert.commit_sha}",
        },
    }


def secret_scanning_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, alert: Alert, hide_secret: bool
) -> dict[str, Any]:
    links = _alert_urls(urls, repo, alert)
    data: dict[str, Any] = {
        "number": alert.number,
        "created_at": iso(alert.created_at),
        "updated_at": iso(alert.updated_at),
        **links,
        "locations_url": f"{links['url']}/locations",
        "state": alert.state,
        "resolution": alert.dismissed_reason,
        "resolved_at": _when(alert.dismissed_at),
        "resolved_by": _user(state, urls, alert.dismissed_by),
        "resolution_comment": alert.dismissed_comment,
        "secret_type": alert.secret_type,
        "secret_type_display_name": alert.secret_type_display_name,
        "push_protection_bypassed": False,
        "push_protection_bypassed_by": None,
        "push_protection_bypassed_at": None,
        "validity": "unknown",
        "publicly_leaked": False,
        "multi_repo": False,
        "is_base64_encoded": False,
        "first_location_detected": secret_location_json(urls, repo, alert)["details"],
        "has_more_locations": False,
    }
    if not hide_secret:
        data["secret"] = alert.secret
    return data


def global_advisory_json(urls: Urls, advisory: Advisory) -> dict[str, Any]:
    return {
        "ghsa_id": advisory.ghsa_id,
        "cve_id": advisory.cve_id,
        "url": f"{urls.api}/advisories/{advisory.ghsa_id}",
        "html_url": f"{urls.web}/advisories/{advisory.ghsa_id}",
        "repository_advisory_url": None,
        "summary": advisory.summary,
        "description": advisory.description,
        "type": "reviewed",
        "severity": advisory.severity,
        "source_code_location": None,
        "identifiers": _identifiers(advisory),
        "references": list(advisory.references),
        "published_at": iso(advisory.published_at),
        "updated_at": iso(advisory.published_at),
        "github_reviewed_at": iso(advisory.published_at),
        "nvd_published_at": iso(advisory.published_at),
        "withdrawn_at": None,
        "vulnerabilities": [
            {
                "package": _package(advisory),
                "vulnerable_version_range": advisory.vulnerable_range,
                "first_patched_version": advisory.patched,
                "vulnerable_functions": [],
            }
        ],
        "cvss": {"vector_string": advisory.cvss_vector, "score": advisory.cvss_score},
        "cwes": _cwes(advisory),
        "credits": [],
    }


def repository_advisory_json(urls: Urls, advisory: Advisory) -> dict[str, Any]:
    published = advisory.state == "published"
    repo_url = urls.repo(advisory.repo or "")
    return {
        "ghsa_id": advisory.ghsa_id,
        "cve_id": advisory.cve_id,
        "url": f"{repo_url}/security-advisories/{advisory.ghsa_id}",
        "html_url": f"{urls.web}/{advisory.repo}/security/advisories/{advisory.ghsa_id}",
        "summary": advisory.summary,
        "description": advisory.description,
        "severity": advisory.severity,
        "author": None,
        "publisher": None,
        "identifiers": _identifiers(advisory),
        "state": advisory.state,
        "created_at": iso(advisory.published_at),
        "updated_at": iso(advisory.published_at),
        "published_at": iso(advisory.published_at) if published else None,
        "closed_at": None,
        "withdrawn_at": None,
        "submission": None,
        "vulnerabilities": [
            {
                "package": _package(advisory),
                "vulnerable_version_range": advisory.vulnerable_range,
                "patched_versions": advisory.patched,
                "vulnerable_functions": [],
            }
        ],
        "cvss": None,
        "cwes": _cwes(advisory),
        "cwe_ids": [cwe for cwe, _ in advisory.cwes],
        "credits": [],
        "credits_detailed": [],
        "collaborating_users": None,
        "collaborating_teams": None,
        "private_fork": None,
    }
