"""Fault injection: rules that match requests and replace, delay or break their answers."""

from __future__ import annotations

import re
import threading
import time
from dataclasses import asdict, dataclass, field
from typing import Any

SECONDARY_LIMIT_MESSAGE = (
    "You have exceeded a secondary rate limit. Please wait a few minutes before you try "
    "again. If you reach out to GitHub Support for help, please include the request ID {rid}."
)
RATE_LIMIT_DOCS = "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api"

# Ready-made rules: name -> defaults a caller may override.
PRESETS: dict[str, dict[str, Any]] = {
    "secondary_rate_limit": {"status": 403, "retry_after": 60},
    "primary_rate_limit": {"status": 403},
    "server_error": {"status": 500},
    "bad_gateway": {"status": 502},
    "unavailable": {"status": 503},
}


@dataclass
class FaultRule:
    id: int
    path: str = ".*"
    method: str | None = None
    status: int | None = None
    times: int | None = 1
    retry_after: int | None = None
    latency_ms: int = 0
    body: Any = None
    drop_connection: bool = False
    phase: str = "before"
    preset: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    hold: bool = False  # the request waits until the rule is released (FaultStore.release)
    hits: int = 0
    _regex: re.Pattern[str] | None = field(default=None, repr=False, compare=False)

    def matches(self, method: str, path: str) -> bool:
        if self.method and self.method.upper() != method.upper():
            return False
        if self._regex is None:
            self._regex = re.compile(self.path)
        return bool(self._regex.search(path))

    @property
    def replaces_response(self) -> bool:
        return self.drop_connection or self.status is not None

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data.pop("_regex", None)
        return data

    def response(self, request_id: str) -> tuple[int, dict[str, str], dict[str, Any]]:
        """Status, headers and JSON body this rule answers with."""
        status = self.status or 500
        headers = dict(self.headers)
        if self.retry_after is not None:
            headers["retry-after"] = str(self.retry_after)
        if self.preset == "primary_rate_limit":
            headers.update({"x-ratelimit-remaining": "0", "x-ratelimit-used": "5000"})
            headers["x-ratelimit-reset"] = str(int(time.time()) + 3600)
        if isinstance(self.body, dict):
            return status, headers, self.body
        if isinstance(self.body, str):
            message = self.body
        elif self.preset == "secondary_rate_limit":
            message = SECONDARY_LIMIT_MESSAGE.format(rid=request_id)
        elif self.preset == "primary_rate_limit":
            message = "API rate limit exceeded for user ID 1."
        else:
            message = _REASONS.get(status, "Error")
        body: dict[str, Any] = {"message": message}
        if self.preset in ("secondary_rate_limit", "primary_rate_limit"):
            anchor = "#about-secondary-rate-limits" if self.preset.startswith("secondary") else ""
            body["documentation_url"] = RATE_LIMIT_DOCS + anchor
        else:
            body["documentation_url"] = "https://docs.github.com/rest"
        body["status"] = str(status)
        return status, headers, body


_REASONS = {
    400: "Bad Request",
    401: "Bad credentials",
    403: "Forbidden",
    404: "Not Found",
    409: "Conflict",
    422: "Validation Failed",
    429: "Too Many Requests",
    500: "Server Error",
    502: "Server Error",
    503: "Service Unavailable",
    504: "We couldn't respond to your request in time. Sorry about that.",
}


class FaultStore:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._rules: list[FaultRule] = []
        self._next = 1
        self._holds: dict[int, threading.Event] = {}

    def add(self, **spec: Any) -> FaultRule:
        preset = spec.get("preset")
        if preset is not None:
            if preset not in PRESETS:
                raise ValueError(f"unknown fault preset {preset!r}; known: {sorted(PRESETS)}")
            given = {k: v for k, v in spec.items() if v is not None or k == "times"}
            spec = {**PRESETS[preset], **given}
        if spec.get("phase", "before") not in ("before", "after"):
            raise ValueError("phase must be 'before' or 'after'")
        try:
            re.compile(spec.get("path", ".*"))  # fail now, not on the next request
        except re.error as exc:
            raise ValueError(f"bad path pattern: {exc}") from exc
        unknown = set(spec) - set(FaultRule.__dataclass_fields__) - {"id", "hits"}
        if unknown:
            raise ValueError(f"unknown fault fields: {sorted(unknown)}")
        with self._lock:
            rule = FaultRule(id=self._next, **{k: v for k, v in spec.items() if k != "id"})
            self._next += 1
            self._rules.append(rule)
            if rule.hold:
                self._holds[rule.id] = threading.Event()
            return rule

    def release(self, rule_id: int) -> None:
        """Let the requests a holding rule keeps (and any it catches later) go on."""
        with self._lock:
            held = self._holds.get(rule_id)
        if held is not None:
            held.set()

    def held(self, rule_id: int) -> bool:
        """Whether requests the rule caught must still wait."""
        with self._lock:
            event = self._holds.get(rule_id)
        return event is not None and not event.is_set()

    def take(self, method: str, path: str) -> FaultRule | None:
        """The first live rule matching the request; counts one use of it."""
        with self._lock:
            for rule in self._rules:
                if rule.matches(method, path):
                    rule.hits += 1
                    if rule.times is not None:
                        rule.times -= 1
                        if rule.times <= 0:
                            self._rules.remove(rule)
                    return rule
            return None

    def remove(self, rule_id: int) -> bool:
        with self._lock:
            before = len(self._rules)
            self._rules = [r for r in self._rules if r.id != rule_id]
            return len(self._rules) != before

    def clear(self) -> None:
        with self._lock:
            self._rules.clear()
            held, self._holds = list(self._holds.values()), {}
        for event in held:  # nothing stays held past the rules that held it
            event.set()

    def list(self) -> list[dict[str, Any]]:
        with self._lock:
            return [r.as_json() for r in self._rules]
