"""Code security by GitHub's REST description: code scanning, Dependabot and secret scanning
alerts (list, get, dismiss or reopen with PATCH), a secret's locations, and security
advisories (global, repository, organisation). Records are in stores/security.py.

Dependabot alerts and advisories page with `after` cursors in the Link header, as GitHub
pages them; the scanning alerts page by number.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Sequence
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, json_response, not_found, validation_failed
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import check_repo
from sandbox_forge.rest.shapes import security as shapes
from sandbox_forge.stores import security as store
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState

SEVERITIES = ("low", "medium", "high", "critical")
# PATCH: the closed state each kind uses and the reasons GitHub accepts for it.
CLOSING = {
    "code-scanning": (
        "dismissed",
        "dismissed_reason",
        ("false positive", "won't fix", "used in tests"),
    ),
    "dependabot": (
        "dismissed",
        "dismissed_reason",
        ("fix_started", "inaccurate", "no_bandwidth", "not_used", "tolerable_risk"),
    ),
    "secret-scanning": (
        "resolved",
        "resolution",
        ("false_positive", "wont_fix", "revoked", "used_in_tests"),
    ),
}
COMMENT_FIELD = {"secret-scanning": "resolution_comment"}


def _after_page(ctx: Ctx, items: Sequence[Any], shape: Callable[[Any], Any]) -> Response:
    """One page after the `after` cursor, with rel="next" carrying the next cursor."""
    _, per_page = ctx.page()
    start = _decode_after(ctx.query.get("after"))
    chunk = items[start : start + per_page]
    headers = None
    if start + per_page < len(items):
        token = base64.urlsafe_b64encode(f"i:{start + per_page}".encode()).decode()
        pairs = [(k, v) for k, v in parse_qsl(ctx.request.url.query) if k != "after"]
        path = quote(ctx.request.scope.get("forge.original_path", ctx.request.url.path))
        query = urlencode([*pairs, ("after", token)])
        headers = {"link": f'<{ctx.urls.web}{path}?{query}>; rel="next"'}
    return json_response([shape(i) for i in chunk], headers=headers)


def _decode_after(raw: str | None) -> int:
    if not raw:
        return 0
    try:
        text = base64.urlsafe_b64decode(raw.encode()).decode()
        if text.startswith("i:"):
            return max(0, int(text[2:]))
    except ValueError:
        pass
    raise ApiError(400, "Invalid cursor")


def _listed(values: str | None) -> set[str] | None:
    return {v.strip().lower() for v in values.split(",") if v.strip()} if values else None


def _alert(ctx: Ctx, kind: str, write: bool = False) -> tuple[RepoRecord, store.Alert]:
    repo = ctx.repo(write=write)
    alert = store.alerts(repo, kind).get(int(ctx.params["number"]))
    if alert is None:
        raise not_found()
    return repo, alert


def _newest(repo: RepoRecord, kind: str, ctx: Ctx) -> list[store.Alert]:
    items = sorted(store.alerts(repo, kind).values(), key=lambda a: a.number)
    return items if ctx.query.get("direction") == "asc" else items[::-1]


@endpoint
def list_code_scanning(ctx: Ctx) -> Response:
    repo = ctx.repo()
    q = ctx.query
    found = [
        a
        for a in _newest(repo, "code-scanning", ctx)
        if (not q.get("state") or a.state == q["state"])
        and (not q.get("tool_name") or a.tool.lower() == q["tool_name"].lower())
        and (not q.get("ref") or a.ref == _full_ref(q["ref"]))
        and (not q.get("severity") or q["severity"] in _severities(a))
    ]
    return ctx.paginate(
        found, lambda a: shapes.code_scanning_json(ctx.state, ctx.urls, repo, a, False)
    )


def _full_ref(ref: str) -> str:
    return ref if ref.startswith("refs/") else f"refs/heads/{ref}"


def _severities(alert: store.Alert) -> tuple[str | None, ...]:
    return (alert.rule.get("severity"), alert.rule.get("security_severity_level"))


@endpoint
def get_code_scanning(ctx: Ctx) -> Response:
    repo, alert = _alert(ctx, "code-scanning")
    return json_response(shapes.code_scanning_json(ctx.state, ctx.urls, repo, alert, True))


@endpoint
def list_dependabot(ctx: Ctx) -> Response:
    repo = ctx.repo()
    states, severities = _listed(ctx.query.get("state")), _listed(ctx.query.get("severity"))
    ecosystems, packages = _listed(ctx.query.get("ecosystem")), _listed(ctx.query.get("package"))
    manifests = _listed(ctx.query.get("manifest"))
    found = []
    for a in _newest(repo, "dependabot", ctx):
        adv = a.advisory
        assert adv is not None
        if (
            (states is None or a.state in states)
            and (severities is None or adv.severity in severities)
            and (ecosystems is None or adv.ecosystem in ecosystems)
            and (packages is None or adv.package.lower() in packages)
            and (manifests is None or a.manifest.lower() in manifests)
        ):
            found.append(a)
    return _after_page(ctx, found, lambda a: shapes.dependabot_json(ctx.state, ctx.urls, repo, a))


@endpoint
def get_dependabot(ctx: Ctx) -> Response:
    repo, alert = _alert(ctx, "dependabot")
    return json_response(shapes.dependabot_json(ctx.state, ctx.urls, repo, alert))


def _hide(ctx: Ctx) -> bool:
    return ctx.query.get("hide_secret", "false").lower() == "true"


@endpoint
def list_secret_scanning(ctx: Ctx) -> Response:
    repo = ctx.repo()
    states, types = _listed(ctx.query.get("state")), _listed(ctx.query.get("secret_type"))
    resolutions = _listed(ctx.query.get("resolution"))
    found = [
        a
        for a in _newest(repo, "secret-scanning", ctx)
        if (states is None or a.state in states)
        and (types is None or a.secret_type in types)
        and (resolutions is None or a.dismissed_reason in resolutions)
    ]
    hide = _hide(ctx)
    return ctx.paginate(
        found, lambda a: shapes.secret_scanning_json(ctx.state, ctx.urls, repo, a, hide)
    )


@endpoint
def get_secret_scanning(ctx: Ctx) -> Response:
    repo, alert = _alert(ctx, "secret-scanning")
    data = shapes.secret_scanning_json(ctx.state, ctx.urls, repo, alert, _hide(ctx))
    return json_response(data)


@endpoint
def secret_locations(ctx: Ctx) -> Response:
    repo, alert = _alert(ctx, "secret-scanning")
    return ctx.paginate([alert], lambda a: shapes.secret_location_json(ctx.urls, repo, a))


def _patch(kind: str) -> Callable[..., Any]:
    def update(ctx: Ctx) -> Response:
        repo, alert = _alert(ctx, kind, write=True)
        body = ctx.json()
        closed, reason_field, reasons = CLOSING[kind]
        state = body.get("state")
        if state not in ("open", closed):
            raise validation_failed({"resource": "Alert", "field": "state", "code": "invalid"})
        reason = body.get(reason_field)
        if state == closed and reason not in reasons:
            raise ApiError(422, f"{reason_field} must be one of {', '.join(reasons)}")
        comment = body.get(COMMENT_FIELD.get(kind, "dismissed_comment"))
        with ctx.state.lock:
            alert.state = state
            closing = state == closed
            alert.dismissed_reason = reason if closing else None
            alert.dismissed_comment = comment if closing else None
            alert.dismissed_by = ctx.principal.login if closing else None
            alert.dismissed_at = time.time() if closing else None
            alert.updated_at = time.time()
        if kind == "code-scanning":
            return json_response(shapes.code_scanning_json(ctx.state, ctx.urls, repo, alert, True))
        if kind == "dependabot":
            return json_response(shapes.dependabot_json(ctx.state, ctx.urls, repo, alert))
        return json_response(shapes.secret_scanning_json(ctx.state, ctx.urls, repo, alert, False))

    update.__name__ = f"update_{kind.replace('-', '_')}"
    return endpoint(update)


@endpoint
def global_advisories(ctx: Ctx) -> Response:
    q = ctx.query
    if q.get("severity") and q["severity"] not in (*SEVERITIES, "unknown"):
        raise ApiError(422, f"{q['severity']!r} is not a valid severity")
    found = [
        a
        for a in store.advisories(ctx.state)
        if a.repo is None
        and (not q.get("ghsa_id") or a.ghsa_id.lower() == q["ghsa_id"].lower())
        and (not q.get("cve_id") or (a.cve_id or "").lower() == q["cve_id"].lower())
        and (not q.get("ecosystem") or a.ecosystem == q["ecosystem"].lower())
        and (not q.get("severity") or a.severity == q["severity"])
        and (not q.get("affects") or a.package.lower() in (_listed(q["affects"]) or set()))
    ]
    found.sort(key=lambda a: a.published_at, reverse=q.get("direction") != "asc")
    return _after_page(ctx, found, lambda a: shapes.global_advisory_json(ctx.urls, a))


@endpoint
def global_advisory(ctx: Ctx) -> Response:
    ghsa = ctx.params["ghsa_id"].lower()
    for advisory in store.advisories(ctx.state):
        if advisory.repo is None and advisory.ghsa_id.lower() == ghsa:
            return json_response(shapes.global_advisory_json(ctx.urls, advisory))
    raise not_found()


def _repo_advisories(ctx: Ctx, repos: list[RepoRecord]) -> Response:
    state = ctx.query.get("state")
    names = {}
    for repo in repos:
        try:  # drafts and triage are for the repository's administrators
            check_repo(ctx.principal, repo, write=False, need="admin")
            names[repo.full_name.lower()] = True
        except ApiError:
            names[repo.full_name.lower()] = False
    found = [
        a
        for a in store.advisories(ctx.state)
        if a.repo in names
        and (names[a.repo] or a.state == "published")
        and (not state or a.state == state)
    ]
    found.sort(key=lambda a: a.published_at, reverse=ctx.query.get("direction") != "asc")
    return _after_page(ctx, found, lambda a: shapes.repository_advisory_json(ctx.urls, a))


@endpoint
def repository_advisories(ctx: Ctx) -> Response:
    return _repo_advisories(ctx, [ctx.repo()])


@endpoint
def org_advisories(ctx: Ctx) -> Response:
    org = ctx.params["org"].lower()
    if ctx.state.user(org) is None:
        raise not_found()
    readable = []
    for repo in ctx.state.all_repos():
        if repo.owner.lower() != org:
            continue
        try:
            readable.append(check_repo(ctx.principal, repo, write=False))
        except ApiError:
            continue
    return _repo_advisories(ctx, readable)


def _fix_alerts(state: ForgeState, update: RefUpdate) -> None:
    """Dependabot alerts close as fixed once the default branch's manifest pins a version
    outside the vulnerable range, as GitHub closes them."""
    owner, _, name = update.repo.partition("/")
    repo = state.repo(owner, name)
    if repo is None or update.new is None or update.ref != f"refs/heads/{repo.default_branch}":
        return
    for alert in store.alerts(repo, "dependabot").values():
        if alert.state != "open" or alert.advisory is None:
            continue
        entries = repo.git.ls_tree(update.new, alert.manifest)
        text = repo.git.read_blob(entries[0].sha).decode(errors="replace") if entries else ""
        version = store.pinned_version(text, alert.advisory.package)
        if version is not None and not store.in_range(version, alert.advisory.vulnerable_range):
            with state.lock:
                alert.state, alert.fixed_at = "fixed", time.time()
                alert.updated_at = alert.fixed_at


def setup(state: ForgeState) -> None:
    state.on_ref_update(lambda update: _fix_alerts(state, update))


def routes(state: ForgeState) -> list[Route]:
    repo = "/repos/{owner}/{repo}"
    found = [
        Route("/advisories", global_advisories, methods=["GET"]),
        Route("/advisories/{ghsa_id}", global_advisory, methods=["GET"]),
        Route(f"{repo}/security-advisories", repository_advisories, methods=["GET"]),
        Route("/orgs/{org}/security-advisories", org_advisories, methods=["GET"]),
        Route(f"{repo}/code-scanning/alerts", list_code_scanning, methods=["GET"]),
        Route(f"{repo}/dependabot/alerts", list_dependabot, methods=["GET"]),
        Route(f"{repo}/secret-scanning/alerts", list_secret_scanning, methods=["GET"]),
        Route(f"{repo}/secret-scanning/alerts/{{number:int}}/locations", secret_locations),
    ]
    for kind, get in (
        ("code-scanning", get_code_scanning),
        ("dependabot", get_dependabot),
        ("secret-scanning", get_secret_scanning),
    ):
        one = f"{repo}/{kind}/alerts/{{number:int}}"
        found += [Route(one, get, methods=["GET"]), Route(one, _patch(kind), methods=["PATCH"])]
    return found
