"""The status page's approvals: the open grants (approval windows and approved-once
writes) and the pending approval requests, each with its age, and a revoke button per
grant (a POST to /status itself, so the page's own sign-in guards it).

The revoke form names a grant by a digest of its key (the key holds a session id,
which the page does not print), and carries a CSRF token that must match the page's
SameSite=Strict cookie (double submit: any replica can check it, nothing is stored).
"""

from __future__ import annotations

import hashlib
import hmac
import html
import secrets

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from github_mcp.approvals.requests import PendingApprovals
from github_mcp.monitoring.observability import log_event
from github_mcp.policy.grants import owner_of
from github_mcp.policy.write_gate import WriteGate

CSRF_COOKIE = "github_mcp_status_revoke_csrf"
SESSION_MARK = "/session:"
ONCE_MARK = "/write:"


def grant_id(key: str) -> str:
    return hashlib.sha256(key.encode()).hexdigest()[:20]


def new_csrf(request: Request) -> str:
    """The page's CSRF token: the browser's cookie when it has one, else a new one."""
    current = request.cookies.get(CSRF_COOKIE, "")
    return current if len(current) >= 32 else secrets.token_urlsafe(32)


def set_csrf(response: Response, token: str, secure: bool) -> None:
    response.set_cookie(
        CSRF_COOKIE, token, path="/status", httponly=True, samesite="strict", secure=secure
    )


def _short(value: str, keep: int = 14) -> str:
    return value if len(value) <= keep else value[:keep] + "…"


def seconds_text(value: float | None) -> str:
    if value is None:
        return "—"
    value = max(0.0, value)
    return f"{value:.0f} s" if value < 120 else f"{value / 60:.0f} min"


def _describe(key: str) -> tuple[str, str, str]:
    """(principal, session, what it grants) for a grant key."""
    principal = owner_of(key)
    rest = key[len(principal) :]
    session = ""
    if rest.startswith(SESSION_MARK):
        session = rest[len(SESSION_MARK) :].split("/", 1)[0]
    if ONCE_MARK in rest:
        what = "one write, once (" + _short(rest.split(ONCE_MARK, 1)[1], 12) + ")"
    else:
        what = "every gated write in the session (window)"
    return principal, _short(session, 10) if session else "—", what


def grants_html(gate: WriteGate, pending: PendingApprovals, csrf: str) -> str:
    esc = html.escape
    rows = []
    for key, left in gate.grants():
        principal, session, what = _describe(key)
        form = (
            '<form method="post" action="/status">'
            f'<input type="hidden" name="csrf" value="{esc(csrf)}">'
            f'<button name="revoke" value="{grant_id(key)}">Revoke</button></form>'
        )
        cells = [esc(principal), esc(session), esc(what), seconds_text(left), form]
        rows.append(
            f'<tr data-grant="{grant_id(key)}">' + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"
        )
    grants = html_table("grants", ["principal", "session", "grants", "expires in", ""], rows)
    waiting = []
    for request in pending.open_requests():
        summary = request.summary
        target = "session's gated writes"
        if summary is not None:
            target = f"{summary.tool} on {summary.repo or '—'}" + (
                f" @ {summary.branch}" if summary.branch else ""
            )
        cells = [
            esc(request.scope.principal.key),
            esc(_short(request.scope.session_id or "—", 10)),
            esc(target),
            seconds_text(pending.age_s(request)),
            seconds_text(request.expires_at - (request.created_at + pending.age_s(request))),
        ]
        waiting.append(
            f'<tr data-request="{esc(request.id)}">'
            + "".join(f"<td>{c}</td>" for c in cells)
            + "</tr>"
        )
    requests = html_table(
        "pending-approvals", ["principal", "session", "write", "age", "link expires in"], waiting
    )
    return "<h3>Open grants</h3>" + grants + "<h3>Pending approval requests</h3>" + requests


def html_table(table_id: str, headers: list[str], rows: list[str]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(rows) or f'<tr><td colspan="{len(headers)}">none</td></tr>'
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


async def revoke(request: Request, gate: WriteGate) -> Response:
    """POST /status: revoke one grant. Whoever is signed in to /status (an operator's
    token, status/auth.py) may revoke any grant; the form must come from the page."""
    if request.headers.get("sec-fetch-site", "same-origin") not in ("same-origin", "none"):
        return _refused("Cross-site request refused.")
    form = await request.form()
    csrf = str(form.get("csrf", ""))
    cookie = request.cookies.get(CSRF_COOKIE, "")
    if not (csrf and cookie and hmac.compare_digest(csrf.encode(), cookie.encode())):
        return _refused("The form's security token did not match.")
    wanted = str(form.get("revoke", ""))
    found = [key for key, _ in gate.grants() if hmac.compare_digest(grant_id(key), wanted)]
    for key in found:
        gate.revoke_grant(key)
    log_event("status_grant_revoked", revoked=len(found))
    return RedirectResponse("/status", 303)


def _refused(message: str) -> HTMLResponse:
    return HTMLResponse(
        f"<!doctype html><title>Refused</title><p>{html.escape(message)}</p>",
        status_code=403,
        headers={"Cache-Control": "no-store"},
    )
