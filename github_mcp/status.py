"""Operator endpoints: /healthz (alias /health), /metrics and the /status page."""

from __future__ import annotations

import asyncio
import html
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from .errors import GitHubMCPError
from .runtime import VERSION, Runtime

SUCCESS_MEMO_S = 1.0


class HealthProbe:
    """GitHub reachability, memoised asymmetrically: success for 1 s, failure never."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self._ok_until = 0.0
        self._lock = asyncio.Lock()
        self.checks = 0

    async def check(self) -> tuple[bool, str]:
        if time.monotonic() < self._ok_until:
            return True, "ok"
        async with self._lock:
            if time.monotonic() < self._ok_until:
                return True, "ok"
            self.checks += 1
            try:
                await asyncio.wait_for(
                    self.rt.github.request_json("GET", "/rate_limit"), timeout=3.0
                )
            except (GitHubMCPError, TimeoutError) as exc:
                code = exc.code.value if isinstance(exc, GitHubMCPError) else "timeout"
                return False, code
            self._ok_until = time.monotonic() + SUCCESS_MEMO_S
            return True, "ok"


def health_payload(rt: Runtime, github_ok: bool, github_state: str) -> dict[str, Any]:
    settings = rt.settings
    return {
        "status": "ok" if github_ok else "degraded",
        "uptime_seconds": round(time.time() - rt.started_at, 1),
        "version": VERSION,
        "github_token_present": settings.has_github_credentials,
        "github": {"reachable": github_ok, "state": github_state, "credential_kind": rt.token_kind},
        "controller": {
            "repo": settings.controller_repo,
            "default_branch": settings.controller_branch,
        },
        "metrics": rt.metrics.snapshot(),
    }


def health_routes(rt: Runtime) -> list[Route]:
    probe = HealthProbe(rt)
    rt.services["health_probe"] = probe

    async def healthz(request: Request) -> Response:
        ok, state = await probe.check()
        return JSONResponse(health_payload(rt, ok, state), status_code=200 if ok else 503)

    async def metrics(request: Request) -> Response:
        return Response(
            rt.metrics.exposition(), media_type="text/plain; version=0.0.4; charset=utf-8"
        )

    async def status(request: Request) -> Response:
        return HTMLResponse(render_status(rt))

    return [
        Route("/healthz", healthz, methods=["GET"]),
        Route("/health", healthz, methods=["GET"]),
        Route("/metrics", metrics, methods=["GET"]),
        Route("/status", status, methods=["GET"]),
    ]


def render_status(rt: Runtime) -> str:
    esc = html.escape
    settings = rt.settings
    rows = "".join(
        f"<tr><td>{esc(name)}</td><td>{row['calls_total']}</td><td>{row['errors_total']}</td>"
        f"<td>{row['p50_ms'] if row['p50_ms'] is not None else '-'}</td>"
        f"<td>{row['p95_ms'] if row['p95_ms'] is not None else '-'}</td></tr>"
        for name, row in rt.metrics.tool_table().items()
    )
    rate = rt.metrics.rate_limit
    reset = (
        time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(rate["reset"]))
        if rate.get("reset")
        else "-"
    )
    cache_rows = "".join(
        f"<tr><td>{esc(ns)}</td><td>{c['hits']}</td><td>{c['misses']}</td>"
        f"<td>{c['hit_ratio'] if c['hit_ratio'] is not None else '-'}</td></tr>"
        for ns, c in rt.metrics.cache_table().items()
    )
    denials = "".join(
        f"<li>{esc(time.strftime('%H:%M:%S', time.gmtime(d['ts'])))} {esc(str(d.get('tool')))} "
        f"{esc(str(d.get('repo')))}@{esc(str(d.get('ref')))}: {esc(d['reason'])}</li>"
        for d in reversed(rt.metrics.recent_denials)
    )
    audit = "".join(
        f"<tr><td>{esc(time.strftime('%H:%M:%S', time.gmtime(e['ts'])))}</td>"
        f"<td>{esc(str(e.get('tool')))}</td><td>{esc(str(e.get('repo')))}</td>"
        f"<td>{esc(str(e.get('ref')))}</td><td>{esc(str(e.get('outcome')))}</td></tr>"
        for e in list(rt.audit.recent)[-20:][::-1]
    )
    return f"""<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="10"><title>GitHub MCP Controller status</title>
<style>body{{font:14px system-ui,sans-serif;margin:2em}}table{{border-collapse:collapse}}
td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left}}</style></head><body>
<h1>GitHub MCP Controller</h1>
<p id="uptime">Version {VERSION} · up {int(time.time() - rt.started_at)} s</p>
<h2>Write gate</h2><p id="gate">mode: {esc(settings.approval_mode)} · auto-approve:
{str(settings.auto_approve).lower()} · read-only: {str(settings.read_only).lower()}</p>
<h2>Tools</h2><table id="tools"><tr><th>tool</th><th>calls</th><th>errors</th><th>p50 ms</th>
<th>p95 ms</th></tr>{rows}</table>
<h2>GitHub rate limit</h2><p id="ratelimit">remaining: {rate.get("remaining", "-")} ·
resets: {reset}</p>
<h2>Cache</h2><table id="cache"><tr><th>namespace</th><th>hits</th><th>misses</th>
<th>hit ratio</th></tr>{cache_rows}</table>
<h2>Recent gate denials</h2><ul id="denials">{denials}</ul>
<h2>Audit (last 20)</h2><table id="audit"><tr><th>time</th><th>tool</th><th>repo</th>
<th>ref</th><th>outcome</th></tr>{audit}</table>
</body></html>"""
