"""JSON logs on stderr, secret redaction, and the metrics registry (DESIGN §9).

Metrics live in a prometheus-client registry (exposed at /metrics); a small
in-memory view on top feeds /healthz and the status page.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import threading
import time
from collections import defaultdict, deque
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

_LOGGER = logging.getLogger("github_mcp")
_SECRETS: set[str] = set()
_SECRET_LOCK = threading.Lock()
_TOKEN_PATTERNS = re.compile(
    r"(gh[pousr]_[A-Za-z0-9_]{8,}|github_pat_[A-Za-z0-9_]{8,}"
    r"|(?i:authorization)\s*[:=]\s*\S+(?:\s+\S+)?"
    r"|(?i:bearer|token|basic)\s+[A-Za-z0-9._~+/=-]{12,}"
    r"|x-access-token:[^@\s]+"
    r"|eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]+"
    r"|-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z ]*PRIVATE KEY-----)"
)


def register_secret(value: str | None) -> None:
    """Remember a secret so that `redact` removes it wherever it appears."""
    if value and len(value) >= 6:
        with _SECRET_LOCK:
            _SECRETS.add(value)


def redact(text: str) -> str:
    for secret in tuple(_SECRETS):
        if secret in text:
            text = text.replace(secret, "[REDACTED]")
    return _TOKEN_PATTERNS.sub("[REDACTED]", text)


class _JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        data: dict[str, Any] = {
            "ts": round(record.created, 3),
            "level": record.levelname.lower(),
            "logger": record.name,
        }
        event = getattr(record, "event", None)
        if event:
            data["event"] = event
            data.update(getattr(record, "fields", {}))
        else:
            data["message"] = record.getMessage()
        if record.exc_info:
            data["exc"] = self.formatException(record.exc_info)
        return redact(json.dumps(data, default=str, ensure_ascii=False))


def configure_logging(level: str = "INFO") -> None:
    """All logging to stderr as JSON lines; stdout stays for protocol frames."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_JsonFormatter())
    root = logging.getLogger()
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    for noisy in ("httpx", "httpx2", "httpcore", "httpcore2", "uvicorn.access"):
        logging.getLogger(noisy).setLevel(logging.WARNING)


def log_event(event: str, level: int = logging.INFO, **fields: Any) -> None:
    clean = {k: v for k, v in fields.items() if v is not None}
    _LOGGER.log(level, event, extra={"event": event, "fields": clean})


class Metrics:
    """Counters and histograms for tools, GitHub requests, the cache and the gate."""

    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.tool_calls = Counter("mcp_tool_calls", "Tool calls", ["tool"], registry=r)
        self.tool_errors = Counter("mcp_tool_errors", "Tool errors", ["tool", "code"], registry=r)
        self.tool_writes = Counter("mcp_tool_write_calls", "Write tool calls", ["tool"], registry=r)
        self.tool_latency = Histogram(
            "mcp_tool_latency_seconds",
            "Tool latency",
            ["tool"],
            registry=r,
            buckets=(0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300),
        )
        self.gh_requests = Counter(
            "mcp_github_requests", "GitHub requests", ["route", "method", "status"], registry=r
        )
        self.gh_errors = Counter(
            "mcp_github_errors", "GitHub request errors", ["route"], registry=r
        )
        self.gh_retries = Counter("mcp_github_retries", "GitHub retries", ["reason"], registry=r)
        self.gh_rate_limit_events = Counter(
            "mcp_github_rate_limit_events", "Rate-limit hits", ["kind"], registry=r
        )
        self.gh_timeouts = Counter("mcp_github_timeouts", "GitHub request timeouts", registry=r)
        self.gh_remaining = Gauge(
            "mcp_github_rate_limit_remaining", "Last x-ratelimit-remaining", registry=r
        )
        self.gh_reset = Gauge("mcp_github_rate_limit_reset", "Last x-ratelimit-reset", registry=r)
        self.gh_in_flight = Gauge("mcp_github_in_flight", "GitHub requests in flight", registry=r)
        self.cache_hits = Counter("mcp_cache_hits", "Cache hits", ["namespace"], registry=r)
        self.cache_misses = Counter("mcp_cache_misses", "Cache misses", ["namespace"], registry=r)
        self.gate_decisions = Counter(
            "mcp_gate_decisions", "Write-gate decisions", ["decision", "reason"], registry=r
        )
        self._lock = threading.Lock()
        self._tools: dict[str, dict[str, Any]] = defaultdict(
            lambda: {
                "calls_total": 0,
                "errors_total": 0,
                "write_calls_total": 0,
                "latency_ms_sum": 0.0,
                "recent_ms": deque(maxlen=500),
            }
        )
        self._github = {
            "requests_total": 0,
            "errors_total": 0,
            "retries_total": 0,
            "rate_limit_events_total": 0,
            "timeouts_total": 0,
            "not_modified_total": 0,
        }
        self._cache: dict[str, list[int]] = defaultdict(lambda: [0, 0])
        self.rate_limit: dict[str, Any] = {}
        self.recent_denials: deque[dict[str, Any]] = deque(maxlen=20)
        self.call_times: deque[float] = deque(maxlen=2000)

    # -- recording --------------------------------------------------------
    def record_tool(self, tool: str, write: bool, duration_ms: float, error: str | None) -> None:
        self.tool_calls.labels(tool).inc()
        self.tool_latency.labels(tool).observe(duration_ms / 1000)
        if write:
            self.tool_writes.labels(tool).inc()
        if error:
            self.tool_errors.labels(tool, error).inc()
        with self._lock:
            entry = self._tools[tool]
            entry["calls_total"] += 1
            entry["write_calls_total"] += int(write)
            entry["errors_total"] += int(error is not None)
            entry["latency_ms_sum"] += duration_ms
            entry["recent_ms"].append(duration_ms)
            self.call_times.append(time.time())

    def record_github(self, route: str, method: str, status: int | str) -> None:
        self.gh_requests.labels(route, method, str(status)).inc()
        with self._lock:
            self._github["requests_total"] += 1
            if status == 304:
                self._github["not_modified_total"] += 1
            if not isinstance(status, int) or status >= 400:
                self._github["errors_total"] += 1
                self.gh_errors.labels(route).inc()

    def record_retry(self, reason: str) -> None:
        self.gh_retries.labels(reason).inc()
        with self._lock:
            self._github["retries_total"] += 1

    def record_rate_limit_event(self, kind: str) -> None:
        self.gh_rate_limit_events.labels(kind).inc()
        with self._lock:
            self._github["rate_limit_events_total"] += 1

    def record_timeout(self) -> None:
        self.gh_timeouts.inc()
        with self._lock:
            self._github["timeouts_total"] += 1

    def observe_rate_limit(
        self, remaining: int, limit: int | None, reset: int | None, resource: str | None
    ) -> None:
        self.gh_remaining.set(remaining)
        if reset:
            self.gh_reset.set(reset)
        self.rate_limit = {
            "remaining": remaining,
            "limit": limit,
            "reset": reset,
            "resource": resource,
        }

    def record_cache(self, namespace: str, hit: bool) -> None:
        (self.cache_hits if hit else self.cache_misses).labels(namespace).inc()
        with self._lock:
            self._cache[namespace][0 if hit else 1] += 1

    def record_gate(self, decision: str, reason: str, detail: dict[str, Any] | None = None) -> None:
        self.gate_decisions.labels(decision, reason).inc()
        if decision == "deny":
            self.recent_denials.append(
                {"ts": round(time.time(), 3), "reason": reason, **(detail or {})}
            )

    # -- views ------------------------------------------------------------
    def tool_table(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            table = {}
            for name, entry in sorted(self._tools.items()):
                recent = sorted(entry["recent_ms"])
                table[name] = {
                    "calls_total": entry["calls_total"],
                    "errors_total": entry["errors_total"],
                    "write_calls_total": entry["write_calls_total"],
                    "latency_ms_sum": round(entry["latency_ms_sum"], 1),
                    "p50_ms": _percentile(recent, 0.50),
                    "p95_ms": _percentile(recent, 0.95),
                }
            return table

    def cache_table(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            out = {}
            for ns, (hits, misses) in sorted(self._cache.items()):
                total = hits + misses
                out[ns] = {
                    "hits": hits,
                    "misses": misses,
                    "hit_ratio": round(hits / total, 3) if total else None,
                }
            return out

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            github = dict(self._github)
        return {
            "tools": {
                name: {k: v for k, v in row.items() if k not in ("p50_ms", "p95_ms")}
                for name, row in self.tool_table().items()
            },
            "github": github | {"rate_limit": self.rate_limit},
            "cache": self.cache_table(),
        }

    def exposition(self) -> bytes:
        return generate_latest(self.registry)


def _percentile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))
    return round(sorted_values[index], 1)
