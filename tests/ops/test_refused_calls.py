"""Calls refused before they run (bad arguments, an unknown tool) are counted like every
other call, by reason, and traced; and every counter exports a series even before its
first event (a zero), so rate() and alert rules see it from the start."""

from __future__ import annotations

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from prometheus_client.parser import text_string_to_metric_families

from github_mcp.monitoring import tracing
from github_mcp.monitoring.metrics import Metrics
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client


@pytest.fixture
def spans():
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    tracing.use_provider(provider)
    yield exporter
    tracing.use_provider(None)


def samples(metrics: Metrics) -> dict[str, dict[tuple[tuple[str, str], ...], float]]:
    out: dict[str, dict[tuple[tuple[str, str], ...], float]] = {}
    for family in text_string_to_metric_families(metrics.exposition().decode()):
        for sample in family.samples:
            out.setdefault(sample.name, {})[tuple(sorted(sample.labels.items()))] = sample.value
    return out


async def test_refused_calls_are_counted_by_reason_and_traced(spans, make_runtime):
    rt = make_runtime()
    good = ("get_file_contents", {"full_name": DEMO_REPO, "path": "README.md"})
    bad_args = ("get_file_contents", {"full_name": DEMO_REPO, "path": 7, "bogus": True})
    unknown = ("no_such_tool_" + "x" * 40, {})
    async with mcp_client(rt) as client:
        results = [await call_tool(client, *call) for call in (good, bad_args, unknown, bad_args)]
    assert [is_error for is_error, _ in results] == [False, True, True, True]
    assert [error_code(p) for _, p in results[1:]] == [
        "invalid_input",
        "not_found",
        "invalid_input",
    ]

    seen = samples(rt.metrics)
    refused = seen["mcp_tool_calls_refused_total"]
    assert refused == {
        (("reason", "invalid_arguments"),): 2.0,
        (("reason", "unknown_tool"),): 1.0,
    }
    calls = seen["mcp_tool_calls_total"]
    assert sum(calls.values()) == 4  # every call the client made, refused ones too
    assert calls[(("tool", "(unknown)"),)] == 1  # the client's name for it is no label
    errors = seen["mcp_tool_errors_total"]
    assert sum(errors.values()) == 3
    assert not any("no_such_tool" in str(key) for key in calls | errors)

    finished = {
        s.attributes["mcp.call_id"]: s for s in spans.get_finished_spans() if s.parent is None
    }
    for _, payload in results[1:]:
        span = finished[payload["error"]["call_id"]]
        assert span.attributes["mcp.outcome"] == "error"
        assert span.attributes["mcp.refused"] in ("invalid_arguments", "unknown_tool")
        assert span.status.status_code.name == "ERROR"


def test_every_counter_has_a_zero_series_before_its_first_event():
    metrics = Metrics()
    seen = samples(metrics)
    counters = [
        "mcp_tool_calls_total",
        "mcp_tool_errors_total",
        "mcp_tool_write_calls_total",
        "mcp_tool_calls_refused_total",
        "mcp_github_requests_total",
        "mcp_github_errors_total",
        "mcp_github_retries_total",
        "mcp_github_rate_limit_events_total",
        "mcp_github_timeouts_total",
        "mcp_cache_hits_total",
        "mcp_cache_misses_total",
        "mcp_gate_decisions_total",
    ]
    for name in counters:
        assert name in seen, name
        assert list(seen[name].values()) == [0.0], name
    metrics.record_timeout()
    assert list(samples(metrics)["mcp_github_timeouts_total"].values()) == [1.0]
