"""The in-memory metrics registry.

Counts live in plain dicts, so recording is cheap and start-up does not import
prometheus-client; `/metrics` renders them in Prometheus exposition format
through a collector built on first scrape.
"""

from __future__ import annotations

import threading
import time
from bisect import bisect_left
from collections import defaultdict, deque
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from prometheus_client.metrics_core import Metric

GAUGE_HELP = {
    "mcp_ready": "1 when /readyz would answer 200 (at its last evaluation)",
    "mcp_github_up": "1 when GitHub answered the last health check",
}
LATENCY_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300)


class LabelledCounter:
    def __init__(self, name: str, help_text: str, labels: tuple[str, ...] = ()) -> None:
        self.name, self.help, self.labels = name, help_text, labels
        self.values: dict[tuple[str, ...], float] = defaultdict(float)

    def inc(self, *label_values: str, amount: float = 1.0) -> None:
        self.values[tuple(label_values)] += amount

    def totals_by(self, label: str) -> dict[str, float]:
        index = self.labels.index(label)
        out: dict[str, float] = defaultdict(float)
        for key, value in list(self.values.items()):
            out[key[index]] += value
        return dict(out)


class LabelledHistogram:
    def __init__(
        self, name: str, help_text: str, labels: tuple[str, ...], buckets: tuple[float, ...]
    ) -> None:
        self.name, self.help, self.labels, self.buckets = name, help_text, labels, buckets
        self.series: dict[tuple[str, ...], list[float]] = {}  # bucket counts…, sum, count

    def observe(self, value: float, *label_values: str) -> None:
        row = self.series.setdefault(tuple(label_values), [0.0] * (len(self.buckets) + 2))
        index = bisect_left(self.buckets, value)
        if index < len(self.buckets):
            row[index] += 1
        row[-2] += value
        row[-1] += 1


class Metrics:
    """Counters and histograms for tools, GitHub requests, the cache and the gate."""

    def __init__(self) -> None:
        c = LabelledCounter
        self.tool_calls = c("mcp_tool_calls", "Tool calls", ("tool",))
        self.tool_errors = c("mcp_tool_errors", "Tool errors", ("tool", "code"))
        self.tool_writes = c("mcp_tool_write_calls", "Write tool calls", ("tool",))
        self.tool_refused = c(
            "mcp_tool_calls_refused", "Tool calls refused before running", ("reason",)
        )
        self.tool_latency = LabelledHistogram(
            "mcp_tool_latency_seconds", "Tool latency", ("tool",), LATENCY_BUCKETS
        )
        self.gh_requests = c(
            "mcp_github_requests", "GitHub requests", ("route", "method", "status")
        )
        self.gh_errors = c("mcp_github_errors", "GitHub request errors", ("route",))
        self.gh_retries = c("mcp_github_retries", "GitHub retries", ("reason",))
        self.gh_rate_limit_events = c("mcp_github_rate_limit_events", "Rate-limit hits", ("kind",))
        self.gh_timeouts = c("mcp_github_timeouts", "GitHub request timeouts")
        self.cache_hits = c("mcp_cache_hits", "Cache hits", ("namespace",))
        self.cache_misses = c("mcp_cache_misses", "Cache misses", ("namespace",))
        self.gate_decisions = c(
            "mcp_gate_decisions", "Write-gate decisions", ("decision", "reason")
        )
        self.in_flight = 0
        self.gauges: dict[str, float] = {}  # set_gauge: readiness, GitHub up
        self.rate_limit: dict[str, Any] = {}
        self.recent_denials: deque[dict[str, Any]] = deque(maxlen=20)
        self.call_times: deque[float] = deque(maxlen=2000)
        self._recent_ms: dict[str, deque[float]] = defaultdict(lambda: deque(maxlen=500))
        self._lock = threading.Lock()

    # -- recording --------------------------------------------------------
    def record_tool(self, tool: str, write: bool, duration_ms: float, error: str | None) -> None:
        with self._lock:
            self.tool_calls.inc(tool)
            self.tool_latency.observe(duration_ms / 1000, tool)
            if write:
                self.tool_writes.inc(tool)
            if error:
                self.tool_errors.inc(tool, error)
            self._recent_ms[tool].append(duration_ms)
            self.call_times.append(time.time())

    def record_refused(self, tool: str, reason: str, error: str) -> None:
        """A call refused before it ran: a call and an error like any other, by reason."""
        with self._lock:
            self.tool_refused.inc(reason)
        self.record_tool(tool, False, 0.0, error)

    def record_github(self, route: str, method: str, status: int | str) -> None:
        with self._lock:
            self.gh_requests.inc(route, method, str(status))
            if not isinstance(status, int) or status >= 400:
                self.gh_errors.inc(route)

    def github_in_flight(self, delta: int) -> None:
        with self._lock:
            self.in_flight += delta

    def record_retry(self, reason: str) -> None:
        with self._lock:
            self.gh_retries.inc(reason)

    def record_rate_limit_event(self, kind: str) -> None:
        with self._lock:
            self.gh_rate_limit_events.inc(kind)

    def record_timeout(self) -> None:
        with self._lock:
            self.gh_timeouts.inc()

    def set_gauge(self, name: str, value: float) -> None:
        with self._lock:
            self.gauges[name] = value

    def observe_rate_limit(
        self, remaining: int, limit: int | None, reset: int | None, resource: str | None
    ) -> None:
        self.rate_limit = {
            "remaining": remaining,
            "limit": limit,
            "reset": reset,
            "resource": resource,
        }

    def record_cache(self, namespace: str, hit: bool) -> None:
        with self._lock:
            (self.cache_hits if hit else self.cache_misses).inc(namespace)

    def record_gate(self, decision: str, reason: str, detail: dict[str, Any] | None = None) -> None:
        with self._lock:
            self.gate_decisions.inc(decision, reason)
            if decision == "deny":
                self.recent_denials.append(
                    {"ts": round(time.time(), 3), "reason": reason, **(detail or {})}
                )

    # -- views ------------------------------------------------------------
    def gate_totals(self) -> dict[str, int]:
        with self._lock:
            totals = self.gate_decisions.totals_by("decision")
        return {"allow": int(totals.get("allow", 0)), "deny": int(totals.get("deny", 0))}

    def recent_latencies(self, limit: int) -> dict[str, list[float]]:
        """Each tool's latest latencies in ms, oldest first."""
        with self._lock:
            return {name: list(values)[-limit:] for name, values in self._recent_ms.items()}

    def tool_table(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            table = {}
            for (name,), calls in sorted(self.tool_calls.values.items()):
                recent = sorted(self._recent_ms[name])
                latency = self.tool_latency.series.get((name,), [0.0, 0.0])
                table[name] = {
                    "calls_total": int(calls),
                    "errors_total": int(
                        sum(v for k, v in self.tool_errors.values.items() if k[0] == name)
                    ),
                    "write_calls_total": int(self.tool_writes.values.get((name,), 0)),
                    "latency_ms_sum": round(latency[-2] * 1000, 1),
                    "p50_ms": _percentile(recent, 0.50),
                    "p95_ms": _percentile(recent, 0.95),
                }
            return table

    def cache_table(self) -> dict[str, dict[str, Any]]:
        with self._lock:
            hits = dict(self.cache_hits.values)
            misses = dict(self.cache_misses.values)
        out = {}
        for (ns,) in sorted(set(hits) | set(misses)):
            h, m = int(hits.get((ns,), 0)), int(misses.get((ns,), 0))
            out[ns] = {
                "hits": h,
                "misses": m,
                "hit_ratio": round(h / (h + m), 3) if h + m else None,
            }
        return out

    def github_totals(self) -> dict[str, Any]:
        with self._lock:
            requests = self.gh_requests.values
            return {
                "requests_total": int(sum(requests.values())),
                "errors_total": int(sum(self.gh_errors.values.values())),
                "retries_total": int(sum(self.gh_retries.values.values())),
                "rate_limit_events_total": int(sum(self.gh_rate_limit_events.values.values())),
                "timeouts_total": int(sum(self.gh_timeouts.values.values())),
                "not_modified_total": int(sum(v for k, v in requests.items() if k[2] == "304")),
                "in_flight": self.in_flight,
            }

    def snapshot(self) -> dict[str, Any]:
        return {
            "tools": {
                name: {k: v for k, v in row.items() if k not in ("p50_ms", "p95_ms")}
                for name, row in self.tool_table().items()
            },
            "github": self.github_totals() | {"rate_limit": self.rate_limit},
            "cache": self.cache_table(),
        }

    def exposition(self) -> bytes:
        from prometheus_client import CollectorRegistry, generate_latest

        registry = CollectorRegistry(auto_describe=False)
        registry.register(_Collector(self))
        return generate_latest(registry)


class _Collector:
    def __init__(self, metrics: Metrics) -> None:
        self.metrics = metrics

    def collect(self) -> Iterator[Metric]:
        m = self.metrics
        with m._lock:
            yield from _counters(m)
            yield _latency(m.tool_latency)
            yield from _gauges(m)


def _counters(m: Metrics) -> Iterator[Metric]:
    from prometheus_client.core import CounterMetricFamily

    for counter in (
        m.tool_calls, m.tool_errors, m.tool_writes, m.tool_refused, m.gh_requests, m.gh_errors,
        m.gh_retries, m.gh_rate_limit_events, m.gh_timeouts, m.cache_hits, m.cache_misses,
        m.gate_decisions,
    ):  # fmt: skip
        family = CounterMetricFamily(counter.name, counter.help, labels=counter.labels)
        for key, value in sorted(counter.values.items()):
            family.add_metric(list(key), value)
        if not counter.values:  # a zero series, so rate() and alerts see it
            family.add_metric([""] * len(counter.labels), 0.0)
        yield family


def _latency(hist: LabelledHistogram) -> Metric:
    from prometheus_client.core import HistogramMetricFamily

    family = HistogramMetricFamily(hist.name, hist.help, labels=hist.labels)
    for key, row in sorted(hist.series.items()):
        cumulative, buckets = 0.0, []
        for bound, count in zip(hist.buckets, row, strict=False):
            cumulative += count
            buckets.append((str(bound), cumulative))
        buckets.append(("+Inf", row[-1]))
        family.add_metric(list(key), buckets, sum_value=row[-2])
    return family


def _gauges(m: Metrics) -> Iterator[Metric]:
    from prometheus_client.core import GaugeMetricFamily

    rate = m.rate_limit
    gauges = (
        ("mcp_github_rate_limit_remaining", "Last x-ratelimit-remaining", rate.get("remaining")),
        ("mcp_github_rate_limit_reset", "Last x-ratelimit-reset", rate.get("reset")),
        ("mcp_github_in_flight", "GitHub requests in flight", m.in_flight),
        ("mcp_github_rate_limit_limit", "Last x-ratelimit-limit", rate.get("limit")),
        *((name, GAUGE_HELP.get(name, name), v) for name, v in sorted(m.gauges.items())),
    )
    for name, help_text, value in gauges:
        if value is not None:
            yield GaugeMetricFamily(name, help_text, value=float(value))


def _percentile(sorted_values: list[float], q: float) -> float | None:
    if not sorted_values:
        return None
    index = min(len(sorted_values) - 1, round(q * (len(sorted_values) - 1)))
    return round(sorted_values[index], 1)
