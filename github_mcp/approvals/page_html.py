"""The documents the approval page answers with: the page shell and its security headers,
the loader that posts the link's key, the form with its buttons and what each grants, and
the pages for a closed request or the wrong person."""

from __future__ import annotations

import html
import secrets

from starlette.responses import HTMLResponse

from github_mcp.approvals.record import ApprovalRequest
from github_mcp.approvals.render import STYLE
from github_mcp.approvals.requests import PAGE_PATH

SECURITY_HEADERS = {
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "form-action 'self'; frame-ancestors 'none'",
    # the link's key never leaves in a Referer to another site; same-origin keeps the
    # form POST's Origin header (with no-referrer Chromium sends `Origin: null`)
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
}


def page(title: str, body: str, status: int, headers: dict[str, str] | None = None) -> HTMLResponse:
    document = (
        f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}'
        f"</title><style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>{body}"
        "</body></html>"
    )
    return HTMLResponse(document, status_code=status, headers=headers or SECURITY_HEADERS)


def not_found() -> HTMLResponse:
    return page("Approval not found", "<p>No such approval request.</p>", 404)


def link_not_valid() -> HTMLResponse:
    return page("Link not valid", "<p>This approval link is not valid.</p>", 403)


def loader(found: ApprovalRequest) -> HTMLResponse:
    """Posts the link's fragment key to `…/open`; the only page with a script (its
    nonce is the only one the policy allows)."""
    nonce = secrets.token_urlsafe(16)
    action = f"{PAGE_PATH}/{html.escape(found.id)}/open"
    script = (
        "var m=/(?:^#|&)key=([^&]*)/.exec(location.hash);"
        "history.replaceState(null,'',location.pathname);"
        "if(m){document.getElementById('k').value=decodeURIComponent(m[1]);"
        "document.getElementById('f').submit();}"
        "else{document.getElementById('none').hidden=false;}"
    )
    body = (
        f'<form id="f" method="post" action="{action}"><input type="hidden" name="key" id="k">'
        '</form><p id="none" hidden>This approval link is not valid: it carries no key.</p>'
        "<noscript><p>This page needs JavaScript to read the link's key, which stays out "
        "of every server log.</p></noscript>"
        f'<script nonce="{nonce}">{script}</script>'
    )
    policy = SECURITY_HEADERS["Content-Security-Policy"] + f"; script-src 'nonce-{nonce}'"
    headers = {**SECURITY_HEADERS, "Content-Security-Policy": policy}
    return page("Opening the approval…", body, 200, headers)


def closed(found: ApprovalRequest) -> HTMLResponse:
    words = {
        "approved": "Approved: this write may go ahead once."
        if found.summary is not None
        else "Approved: gated writes in this session pass for the approval's time.",
        "approved_window": f"Approved: gated writes in this client session pass for "
        f"{found.window_minutes} minutes (not in your other sessions).",
        "denied": "Denied: nothing was approved.",
        "declined": "The client declined to open this page; nothing was approved.",
        "expired": "This approval request expired; nothing was approved.",
    }
    text = words.get(found.status, found.status)
    status = 200 if found.status in ("approved", "approved_window", "denied") else 410
    body = f'<p id="outcome" data-status="{html.escape(found.status)}">{html.escape(text)}</p>'
    return page("Approval " + found.status.replace("_", " "), body, status)


def wrong_person(found: ApprovalRequest) -> HTMLResponse:
    owner = found.scope.principal
    who = owner.name if owner.kind == "github" else "another principal"
    body = (
        f"<p>This approval belongs to {html.escape(who)}. Sign in as that user (or use that "
        "principal's credentials) to decide on it.</p>"
    )
    return page("Not your approval", body, 403)


def button_meanings(found: ApprovalRequest, windows: bool) -> list[tuple[str, str, str, str]]:
    """(id, choice, label, exactly what it grants) for each button the page shows. A
    client without a session cannot hold a window: its button is shown, disabled, saying
    why."""
    minutes = found.window_minutes
    session = "this client session (the one that asked; not your other sessions or clients)"
    if found.summary is not None:
        choices = [
            (
                "approve",
                "approve",
                "Approve this write once",
                "Lets exactly this call, with these arguments, run once; nothing else.",
            )
        ]
    else:
        choices = [
            (
                "approve",
                "approve",
                "Approve gated writes in this session",
                f"Gated writes from {session} pass until the approval expires.",
            )
        ]
    window = (
        f"Every gated write from {session} passes for {minutes} minutes, "
        "then approval is asked again."
        if windows
        else "Not offered here: this client connects without a session (each request stands "
        "alone), so a window would cover every client of this principal."
    )
    choices.append(("approve-window", "approve_window", f"Approve for {minutes} minutes", window))
    choices.append(("deny", "deny", "Deny", "Nothing is approved; the call is refused."))
    return choices  # fmt: skip


def form_html(found: ApprovalRequest, windows: bool = True) -> str:
    fields = (
        f'<input type="hidden" name="key" value="{html.escape(found.key)}">'
        f'<input type="hidden" name="csrf" value="{html.escape(found.csrf)}">'
    )
    meanings = button_meanings(found, windows)
    buttons = "".join(
        f'<button id="{b}" name="choice" value="{c}"'
        + (" disabled" if c == "approve_window" and not windows else "")
        + f">{html.escape(label)}</button>"
        for b, c, label, _ in meanings
    )
    notes = "".join(
        f'<li data-choice="{c}"><strong>{html.escape(label)}</strong>: {html.escape(what)}</li>'
        for _, c, label, what in meanings
    )
    action = f"{PAGE_PATH}/{html.escape(found.id)}"
    return (
        f'<form method="post" action="{action}">{fields}{buttons}</form>'
        f'<ul id="choices">{notes}</ul>'
    )
