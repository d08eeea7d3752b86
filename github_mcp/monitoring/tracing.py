"""OpenTelemetry traces: a span per tool call, with a child span for each GitHub request
and each git or workspace process.

Off unless OTEL_EXPORTER_OTLP_ENDPOINT (or ..._TRACES_ENDPOINT) is set: then the SDK and
the OTLP/HTTP exporter are imported and spans leave in batches. When off, `span()` is a
bare context manager that yields None and imports nothing, so tracing costs nothing.
Attributes never carry secrets: values are redacted, and only names (tool, repository,
route, git subcommand) are recorded, never arguments' contents.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from github_mcp.monitoring.observability import CURRENT_CALL_ID, log_event, redact

INSTRUMENTATION = "github_mcp"
# The standard OpenTelemetry variables this server honours (docs/CONFIG.md lists them).
OTEL_VARIABLES = (
    (
        "OTEL_EXPORTER_OTLP_ENDPOINT",
        "Base URL of an OTLP/HTTP collector; setting it turns tracing on (spans go to "
        "`<url>/v1/traces`). Unset: no tracing, and no OpenTelemetry import.",
    ),
    (
        "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
        "Full URL for spans; also turns tracing on, and wins over the base URL.",
    ),
    (
        "OTEL_EXPORTER_OTLP_HEADERS",
        "Headers sent to the collector (`key=value,key2=value2`), e.g. its API key.",
    ),
    ("OTEL_EXPORTER_OTLP_TIMEOUT", "Export timeout in milliseconds (the SDK's default: 10000)."),
    ("OTEL_SERVICE_NAME", "The `service.name` of every span (default `github-mcp-controller`)."),
    ("OTEL_SDK_DISABLED", "`true` keeps tracing off even when an endpoint is set."),
)
_tracer: Any = None
_provider: Any = None


def enabled() -> bool:
    return _tracer is not None


def configure_from_env(environ: Mapping[str, str] = os.environ) -> bool:
    """Export spans over OTLP/HTTP when the standard OTEL_* variables ask for it. The
    exporter reads its endpoint, headers and timeout from those variables itself."""
    endpoint = environ.get("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") or environ.get(
        "OTEL_EXPORTER_OTLP_ENDPOINT"
    )
    if not endpoint or environ.get("OTEL_SDK_DISABLED", "").lower() == "true":
        return False
    from opentelemetry import trace
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    service = environ.get("OTEL_SERVICE_NAME") or "github-mcp-controller"
    provider = TracerProvider(resource=Resource.create({"service.name": service}))
    provider.add_span_processor(BatchSpanProcessor(OTLPSpanExporter()))
    # fastmcp's own protocol spans (tools/call, resources/read) then share the provider.
    trace.set_tracer_provider(provider)
    use_provider(provider)
    log_event("tracing_enabled", exporter="otlp/http", service=service)
    return True


def use_provider(provider: Any) -> None:
    """Trace into `provider` (an SDK TracerProvider); None turns tracing off again."""
    global _tracer, _provider
    _provider = provider
    _tracer = provider.get_tracer(INSTRUMENTATION) if provider is not None else None
    match_library_spans()


def match_library_spans() -> None:
    """fastmcp's own protocol spans follow ours: on with tracing, else `propagation_only`
    (trace context still passed on, no spans). Its no-op spans cost about a tenth of a
    millisecond per call, roughly a tenth of a cached call's CPU. FASTMCP_TELEMETRY_MODE,
    when set, decides instead. Reads fastmcp only if it is imported: none of its cost."""
    fastmcp = sys.modules.get("fastmcp")
    if fastmcp is None or "FASTMCP_TELEMETRY_MODE" in os.environ:
        return
    fastmcp.settings.telemetry_mode = "native" if enabled() else "propagation_only"


def shutdown() -> None:
    """Flush spans still batched (at exit)."""
    if _provider is not None:
        _provider.shutdown()


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[Any]:
    """A child of the current span; yields the span, or None when tracing is off. An
    exception passing through marks the span as an error (type only, no message)."""
    if _tracer is None:
        yield None
        return
    from opentelemetry.trace import Status, StatusCode

    attrs = _clean(attributes)
    call_id = CURRENT_CALL_ID.get()
    if call_id and "mcp.call_id" not in attrs:
        attrs["mcp.call_id"] = call_id
    with _tracer.start_as_current_span(
        name, attributes=attrs, record_exception=False, set_status_on_exception=False
    ) as current:
        try:
            yield current
        except BaseException as exc:
            current.set_status(Status(StatusCode.ERROR, type(exc).__name__))
            current.set_attribute("error.type", type(exc).__name__)
            raise


def annotate(current: Any, **attributes: Any) -> None:
    if current is not None:
        current.set_attributes(_clean(attributes))


def mark_error(current: Any, error_type: str) -> None:
    if current is None:
        return
    from opentelemetry.trace import Status, StatusCode

    current.set_status(Status(StatusCode.ERROR, error_type))
    current.set_attribute("error.type", error_type)


def _clean(attributes: Mapping[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in attributes.items():
        if value is None:
            continue
        if isinstance(value, str):
            value = redact(value)[:300]
        elif not isinstance(value, bool | int | float):
            value = redact(str(value))[:300]
        out[key] = value
    return out
