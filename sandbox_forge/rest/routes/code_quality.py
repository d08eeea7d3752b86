"""Code quality findings (GitHub Code Quality), by GitHub's OpenAPI description:
GET /repos/{o}/{r}/code-quality/findings and …/findings/{finding_number}.

A repository has findings only once code quality is set up for it; until then both
endpoints answer 403, the status GitHub documents for a repository whose Code Quality the
caller may not access. The findings are kept in stores/code_quality.py.
"""

from __future__ import annotations

from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found
from sandbox_forge.kernel.formats import iso
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.code_quality import Finding, QualityStore, quality
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def finding_json(ctx: Ctx, repo: RepoRecord, finding: Finding) -> dict[str, Any]:
    return {
        "number": finding.number,
        "state": finding.state,
        "url": f"{ctx.urls.repo(repo.full_name)}/code-quality/findings/{finding.number}",
        "rule": {
            "id": finding.rule_id,
            "title": finding.title,
            "description": finding.description,
            "help": finding.help,
            "severity": finding.severity,
            "category": finding.category,
        },
        "location": {
            "path": finding.path,
            "start_line": finding.start_line,
            "start_column": 1,
            "end_line": finding.end_line,
            "end_column": 1,
        },
        "message": {"text": finding.message, "markdown": finding.message},
        "created_at": iso(finding.created_at),
    }


def _store(ctx: Ctx) -> tuple[RepoRecord, QualityStore]:
    repo = ctx.repo()
    found = quality(repo)
    if found is None:
        raise ApiError(403, "Code quality is not enabled for this repository.")
    return repo, found


@endpoint
def list_findings(ctx: Ctx) -> Response:
    repo, store = _store(ctx)
    ascending = ctx.query.get("direction") == "asc"
    found = sorted(store.findings.values(), key=lambda f: f.number, reverse=not ascending)
    return ctx.paginate(found, lambda f: finding_json(ctx, repo, f))


@endpoint
def get_finding(ctx: Ctx) -> Response:
    repo, store = _store(ctx)
    finding = store.findings.get(ctx.params["number"])
    if finding is None:
        raise not_found()
    return json_response(finding_json(ctx, repo, finding))


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/code-quality/findings"
    return [
        Route(base, list_findings, methods=["GET"]),
        Route(base + "/{number:int}", get_finding, methods=["GET"]),
    ]
