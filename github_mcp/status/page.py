"""Operator endpoints: /healthz (alias /health), /readyz, /metrics and the /status page.

/status is plain HTML that reloads itself every few seconds (a meta refresh; no
script at all, and the Content-Security-Policy forbids any), with inline SVG
sparklines. It shows counters and the latest audit entries, never a secret: the
audit log is redacted when written, and principals are shortened here.
"""

from __future__ import annotations

import html
import time
from collections.abc import Iterable
from typing import Any, Protocol

from github_mcp.pipeline.runtime import VERSION, Runtime
from github_mcp.status.grants import grants_html
from github_mcp.status.health import HealthProbe, readiness
from github_mcp.status.html_parts import (
    CSS,
    clock_text,
    duration_text,
    html_dl,
    html_row,
    html_table,
    num_text,
    plural,
    ratio_bar,
    short_text,
    sparkline,
)

NO_STORE = {"Cache-Control": "no-store"}
REFRESH_S = 10
RATE_WINDOW_MIN = 30
AUDIT_ROWS = 20
STATUS_HEADERS = {
    "Cache-Control": "no-store",
    "Content-Security-Policy": "default-src 'none'; style-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
    "X-Content-Type-Options": "nosniff",
    # same-origin, not no-referrer: a form POST then keeps its real Origin header
    "Referrer-Policy": "same-origin",
}


class SessionCounts(Protocol):
    """What the page shows of the HTTP transport's sessions (the server's session limits)."""

    stateless: bool
    max_sessions: int
    idle_timeout_s: float

    def open_sessions(self) -> int | None: ...

    def asleep_sessions(self) -> int: ...


# -- data the page needs ------------------------------------------------------


def _recent_latencies(rt: Runtime) -> dict[str, list[float]]:
    """Each tool's latest latencies (oldest first), for the sparklines."""
    return rt.metrics.recent_latencies(40)


def _active_approvals(rt: Runtime) -> int:
    return rt.gate.active_approvals()


def _gate_counts(rt: Runtime) -> dict[str, int]:
    return rt.metrics.gate_totals()


def _health_rows(rt: Runtime, now: float) -> list[tuple[str, str]]:
    """GitHub's reachability and this replica's readiness, as the probes last saw them."""
    probe = readiness(rt)
    upstream = probe.known()
    seen = (
        f" · checked {duration_text(now - upstream.checked_at)} ago" if upstream.checked_at else ""
    )
    if upstream.state == "ok":
        github = f'<span class="ok" id="github-state">reachable</span>{seen}'
    elif upstream.state == "unchecked":
        github = '<span class="muted" id="github-state">not checked yet</span>'
    else:
        github = f'<span class="bad" id="github-state">{html.escape(upstream.state)}</span>{seen}'
    last = probe.last_readiness
    if last is None:
        ready = '<span class="muted" id="readiness">not evaluated yet</span>'
    elif last[0]:
        ready = '<span class="ok" id="readiness">ready</span>'
    else:
        failing = ", ".join(
            f"{name} ({check.get('state', 'failing')})" if check.get("state") else name
            for name, check in last[1].items()
            if not check["ok"]
        )
        ready = f'<span class="bad" id="readiness">not ready: {html.escape(failing)}</span>'
    return [("GitHub", github), ("readiness", ready)]


def _calls_per_minute(call_times: Iterable[float], now: float) -> list[int]:
    buckets = [0] * RATE_WINDOW_MIN
    for ts in list(call_times):
        age = int((now - ts) // 60)
        if 0 <= age < RATE_WINDOW_MIN:
            buckets[RATE_WINDOW_MIN - 1 - age] += 1
    return buckets


# -- rendering ----------------------------------------------------------------


def _audit_result(entry: dict[str, Any]) -> str:
    for key in ("commit_sha", "sha"):
        if entry.get(key):
            return html.escape(str(entry[key])[:10])
    if entry.get("number"):
        return f"#{html.escape(str(entry['number']))}"
    return ""


def _sessions_html(sessions: SessionCounts | None) -> str:
    """Open sessions against the cap, and the idle timeout that reaps abandoned ones."""
    if sessions is None:
        return html_dl("sessions", [("transport", "not served over HTTP")])
    if sessions.stateless:
        return html_dl("sessions", [("transport", "stateless HTTP: no sessions are kept")])
    open_now = sessions.open_sessions()
    cap = sessions.max_sessions
    full = open_now is not None and open_now >= cap
    count = "-" if open_now is None else str(open_now)
    return html_dl(
        "sessions",
        [
            (
                "open sessions",
                f'<strong id="sessions-open" class="{"bad" if full else ""}">{count}</strong>'
                f' of <span id="sessions-max">{cap}</span> allowed'
                + (" (new sessions are refused)" if full else "")
                + f', <span id="sessions-asleep">{sessions.asleep_sessions()}</span> of them'
                " asleep (idle: freed until their next request)",
            ),
            (
                "idle timeout",
                f'<span id="sessions-idle-timeout">{sessions.idle_timeout_s:g}</span> s '
                "without a request closes a session",
            ),
        ],
    )


def _approval_state(rt: Runtime) -> str:
    """Who approves writes now; counting the held approvals is asked for in every mode."""
    s = rt.settings
    approvals = _active_approvals(rt)
    if s.read_only:
        return '<span class="ok">read-only: no write tools</span>'
    if s.approval_mode == "env":
        return (
            '<span class="warn">approved by the operator (GITHUB_MCP_AUTO_APPROVE)</span>'
            if s.auto_approve
            else '<span class="ok">not approved; only the operator can approve</span>'
        )
    default = "approved" if s.auto_approve else "not approved"
    return (
        f'<span class="{"warn" if s.auto_approve else "ok"}">sessions start {default}</span>'
        f"; <strong>{approvals}</strong> session(s) hold an approval now"
    )


def _gate_html(rt: Runtime) -> str:
    """The write gate: approval mode and state, what is protected, the decisions so far."""
    esc = html.escape
    s = rt.settings
    approval_state = _approval_state(rt)
    gate_counts = _gate_counts(rt)
    protected = ["default branch"]
    if s.controller_repo:
        protected.append(f"{s.controller_repo}@{s.controller_branch}")
    protected += list(s.protected_globs)
    expiry = f"{s.approval_ttl_seconds} s, or the end of its session if sooner"
    repos = ", ".join(s.allowlist) if s.allowlist else "all (no allow-list)"
    decisions = f"{gate_counts.get('allow', 0)} allowed, {gate_counts.get('deny', 0)} denied"
    return html_dl(
        "gate",
        [
            ("approval mode", f"<code>{esc(s.approval_mode)}</code>"),
            ("approval state", approval_state),
            ("approval expiry", expiry),
            ("protected", esc(", ".join(protected))),
            ("repositories", esc(repos)),
            ("decisions", decisions),
        ],
    )


def _tools_html(rt: Runtime, table: dict[str, dict[str, Any]]) -> str:
    """One row per tool, busiest first, with its latest latencies as a sparkline."""
    esc = html.escape
    latencies = _recent_latencies(rt)
    tool_rows = [
        html_row(
            [
                f"<code>{esc(name)}</code>",
                str(row["calls_total"]),
                str(row["errors_total"]),
                num_text(row["p50_ms"]),
                num_text(row["p95_ms"]),
                sparkline(latencies.get(name, []), width=100, height=18, label=f"{name} ms"),
            ],
            "err" if row["errors_total"] else "",
        )
        for name, row in sorted(table.items(), key=lambda kv: (-kv[1]["calls_total"], kv[0]))
    ]
    return html_table(
        "tools",
        ["tool", "calls", "errors", "p50 ms", "p95 ms", "recent latency"],
        tool_rows,
        "no tool calls yet",
    )


def _rate_limit_text(rate: dict[str, Any]) -> str:
    """Requests left of the limit, marked when under a tenth of it."""
    remaining = rate.get("remaining")
    limit = rate.get("limit")
    low = remaining is not None and limit and remaining < 0.1 * limit
    remaining_text = num_text(remaining) + (f" of {limit}" if limit else "")
    if rate.get("resource"):
        remaining_text += f" ({html.escape(str(rate['resource']))})"
    return f'<span class="{"bad" if low else ""}">{remaining_text}</span>'


def _github_html(rt: Runtime, now: float) -> str:
    """GitHub's health, the rate limit and the requests sent to it."""
    esc = html.escape
    s = rt.settings
    metrics = rt.metrics
    rate = metrics.rate_limit
    reset = rate.get("reset")
    reset_in = f" (in {duration_text(max(0, reset - now))})" if reset else ""
    github = metrics.snapshot()["github"]
    return html_dl(
        "ratelimit",
        [
            *_health_rows(rt, now),
            ("API", f"<code>{esc(s.github_api_url)}</code> · {esc(rt.token_kind)} credentials"),
            ("rate limit remaining", _rate_limit_text(rate)),
            ("resets at", clock_text(reset) + reset_in),
            (
                "requests",
                f"{github['requests_total']} sent, {plural(github['errors_total'], 'error')}, "
                f"{github['retries_total']} retries, {github['not_modified_total']} answered 304",
            ),
        ],
    )


def _cache_html(rt: Runtime) -> str:
    cache_rows = [
        html_row(
            [
                f"<code>{html.escape(ns)}</code>",
                str(c["hits"]),
                str(c["misses"]),
                ratio_bar(c["hit_ratio"]),
            ]
        )
        for ns, c in rt.metrics.cache_table().items()
    ]
    return html_table(
        "cache", ["namespace", "hits", "misses", "hit ratio"], cache_rows, "no lookups"
    )


def _denials_html(rt: Runtime) -> str:
    """The gate's latest denials, newest first."""
    esc = html.escape
    denial_rows = [
        html_row(
            [
                clock_text(d.get("ts")),
                f"<code>{esc(str(d.get('tool') or '-'))}</code>",
                esc(f"{d.get('repo') or '-'}@{d.get('ref') or '-'}"),
                esc(str(d.get("reason", ""))),
            ]
        )
        for d in reversed(list(rt.metrics.recent_denials))
    ]
    return html_table("denials", ["time", "tool", "target", "reason"], denial_rows, "none")


def _audit_html(rt: Runtime) -> str:
    """The last AUDIT_ROWS writes, newest first; principals shortened."""
    esc = html.escape
    audit_rows = [
        html_row(
            [
                clock_text(e.get("ts")),
                f"<code>{esc(str(e.get('tool')))}</code>",
                esc(str(e.get("repo") or "-")),
                esc(str(e.get("ref") or "-")),
                esc(str(e.get("outcome"))),
                _audit_result(e),
                f"<code>{esc(short_text(e.get('principal'), 14))}</code>",
                f"<code>{esc(str(e.get('call_id', '')))}</code>",
            ],
            "" if e.get("outcome") == "ok" else "err",
        )
        for e in list(rt.audit.recent)[-AUDIT_ROWS:][::-1]
    ]
    return html_table(
        "audit",
        ["time", "tool", "repo", "ref", "outcome", "result", "principal", "call id"],
        audit_rows,
        "no writes yet",
    )


def _overview_html(rt: Runtime, table: dict[str, dict[str, Any]], now: float) -> str:
    """All tools' calls and errors, and calls per minute over the last RATE_WINDOW_MIN."""
    total_calls = sum(r["calls_total"] for r in table.values())
    total_errors = sum(r["errors_total"] for r in table.values())
    per_minute = _calls_per_minute(rt.metrics.call_times, now)
    error_rate = f"{total_errors / total_calls:.1%}" if total_calls else "-"
    return html_dl(
        "overview-list",
        [
            (
                "tool calls",
                f'<strong id="total-calls">{total_calls}</strong>, '
                f"{plural(total_errors, 'error')} ({error_rate})",
            ),
            (
                "calls per minute",
                sparkline(per_minute, width=240, height=32, label="calls/min")
                + f' <span class="muted">last {RATE_WINDOW_MIN} min</span>',
            ),
        ],
    )


def _uptime_text(rt: Runtime, now: float) -> str:
    return (
        f"version <strong>{html.escape(VERSION)}</strong> · up "
        f"<strong>{duration_text(now - rt.started_at)}</strong> "
        f"since {clock_text(rt.started_at)} · "
        f"this page reloads every {REFRESH_S} s"
    )


def render_status(rt: Runtime, sessions: SessionCounts | None = None, csrf: str = "") -> str:
    now = time.time()
    # One reading of the tool table, so the totals and the rows agree.
    table = rt.metrics.tool_table()
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="refresh" content="{REFRESH_S}">
<meta name="viewport" content="width=device-width,initial-scale=1">
<title>GitHub MCP Controller · status</title><style>{CSS}</style></head><body>
<header><div><h1>GitHub MCP Controller</h1>
<p id="uptime">{_uptime_text(rt, now)}</p></div></header>
<main>
<section id="overview"><h2>Activity</h2>{_overview_html(rt, table, now)}</section>
<section><h2>Write gate</h2>{_gate_html(rt)}</section>
<section><h2>Sessions</h2>{_sessions_html(sessions)}</section>
<section class="wide"><h2>Approvals</h2>{grants_html(rt.gate, rt.pending, csrf)}</section>
<section class="wide"><h2>Tools</h2>{_tools_html(rt, table)}</section>
<section><h2>GitHub</h2>{_github_html(rt, now)}</section>
<section><h2>Cache</h2>{_cache_html(rt)}</section>
<section class="wide"><h2>Recent gate denials</h2>{_denials_html(rt)}</section>
<section class="wide"><h2>Audit log (last {AUDIT_ROWS} writes)</h2>{_audit_html(rt)}</section>
</main></body></html>
"""


__all__ = ["HealthProbe", "SessionCounts", "render_status"]
