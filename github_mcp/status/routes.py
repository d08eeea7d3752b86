"""The HTTP routes of the status package: /healthz and /health (liveness), /readyz,
/metrics, /status (the page, behind its sign-in) and the grant revoke form."""

from __future__ import annotations

import time
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from github_mcp.pipeline.runtime import VERSION, Runtime
from github_mcp.status.grants import new_csrf, revoke, set_csrf
from github_mcp.status.health import UpstreamState, readiness
from github_mcp.status.page import NO_STORE, STATUS_HEADERS, SessionCounts, render_status


def health_payload(rt: Runtime, upstream: UpstreamState) -> dict[str, Any]:
    settings = rt.settings
    return {
        "status": "ok",
        "uptime_seconds": round(time.time() - rt.started_at, 1),
        "version": VERSION,
        "github_token_present": settings.has_github_credentials,
        "github": {
            "reachable": upstream.reachable,
            "state": upstream.state,
            "credential_kind": rt.token_kind,
            "checked_at": round(upstream.checked_at, 3),
        },
        "controller": {
            "repo": settings.controller_repo,
            "default_branch": settings.controller_branch,
        },
        "metrics": rt.metrics.snapshot(),
    }


def health_routes(
    rt: Runtime, sessions: SessionCounts | None = None, github: Any = None, public: str = ""
) -> list[Route]:
    from github_mcp.status.auth import StatusSignIn

    probe = readiness(rt)
    sign_in = StatusSignIn(rt.settings, github, public)  # github: OAuth users sign in too

    async def healthz(request: Request) -> Response:
        # Liveness: 200 while this process serves; GitHub's last known state is
        # information only, never awaited.
        return JSONResponse(health_payload(rt, probe.known()), headers=NO_STORE)

    async def readyz(request: Request) -> Response:
        ready, checks = await probe.readiness()
        body = {"status": "ready" if ready else "not_ready", "checks": checks}
        return JSONResponse(body, status_code=200 if ready else 503, headers=NO_STORE)

    async def metrics(request: Request) -> Response:
        return Response(
            rt.metrics.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    async def status(request: Request) -> Response:
        if (other := sign_in.page_for(request, rt)) is not None:
            return other  # the sign-in form, or a GitHub user's own activity
        await probe.readiness()  # remembered, so a page reload costs GitHub nothing
        csrf = new_csrf(request)
        # the sign-out button sits at the header's right (the page's CSS lays it out)
        page = render_status(rt, sessions, csrf).replace(
            "</header>", sign_in.logout_form(request) + "</header>", 1
        )
        response = HTMLResponse(page, headers=STATUS_HEADERS)
        set_csrf(response, csrf, secure=request.url.scheme == "https")
        return response

    async def revoke_grant(request: Request) -> Response:
        if sign_in.visitor(request) is None:
            return sign_in.denied(request)
        return await revoke(request, rt.gate)

    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/health", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/status", status, methods=["GET"]),
        *sign_in.routes(),
        Route("/status", revoke_grant, methods=["POST"]),
    ]
