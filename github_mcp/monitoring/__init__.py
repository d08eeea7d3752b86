"""What the server tells its operators: structured logs with secret redaction, metrics,
traces, the per-client log, the audit trail, health probes and GC tuning."""
