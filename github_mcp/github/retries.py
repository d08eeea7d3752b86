"""The retry and rate-limit policy of the GitHub client: which answers are retried and how long
to back off, GitHub's secondary limit (Retry-After, waited out when short), the primary limit
(exhausted: fail fast with the reset time), and the structured error for any other failure."""

from __future__ import annotations

import time
from typing import Any

import httpx2 as httpx

from github_mcp.github.rule_violations import is_rule_refusal, rule_violation, rules_in
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import Metrics, redact

RETRY_STATUSES = {500, 502, 503, 504}
IDEMPOTENT_METHODS = {"GET", "HEAD", "OPTIONS"}
MAX_ATTEMPTS = 3  # for a transport error or a 5xx: the first try and two retries
MAX_RATE_LIMIT_ATTEMPTS = 4  # a short secondary rate limit is waited out up to 3 times


def retries_failure(retryable: bool, attempt: int, status: int | None = None) -> bool:
    """Whether a failed attempt (a transport error, or a `status` answer) is tried again:
    only a retryable request, only a 5xx GitHub lists as passing, within MAX_ATTEMPTS."""
    if status is not None and status not in RETRY_STATUSES:
        return False
    return retryable and attempt < MAX_ATTEMPTS


def shares_rate_limit(response: httpx.Response) -> bool:
    """Whether replicas must hear of this answer: a limit hit, or the budget spent."""
    status = response.status_code
    return status in (403, 429) or response.headers.get("x-ratelimit-remaining") == "0"


def wants_redirect(status: int) -> bool:
    """A 3xx other than 304 (which answers a revalidation) points elsewhere."""
    return 300 <= status < 400 and status != 304


def backoff_delay(base_delay: float, attempt: int) -> float:
    """Exponential back-off before retry number `attempt` (jitter is added by the caller)."""
    return base_delay * 2.0 ** (attempt - 1)


def observe_rate_limit(metrics: Metrics, response: httpx.Response) -> None:
    """Record the rate-limit headers of an answer (the budget left, its reset)."""
    remaining = response.headers.get("x-ratelimit-remaining")
    if remaining is None or not remaining.isdigit():
        return
    limit = response.headers.get("x-ratelimit-limit")
    reset = response.headers.get("x-ratelimit-reset")
    metrics.observe_rate_limit(
        int(remaining),
        int(limit) if limit and limit.isdigit() else None,
        int(reset) if reset and reset.isdigit() else None,
        response.headers.get("x-ratelimit-resource"),
    )


async def secondary_limit_wait(
    response: httpx.Response, stream: bool, metrics: Metrics, max_wait: float
) -> float | None:
    """Seconds to wait before retrying a secondary limit, or None (not one)."""
    if stream:
        await response.aread()
    message = message_of(response).lower()
    retry_after = response.headers.get("retry-after")
    remaining = response.headers.get("x-ratelimit-remaining")
    if remaining == "0" and not retry_after:
        return None  # primary limit: fail fast in error_for
    is_secondary = retry_after is not None or "secondary rate limit" in message
    if not is_secondary:
        return None
    metrics.record_rate_limit_event("secondary")
    wait = float(retry_after) if retry_after and is_number(retry_after) else 60.0
    if wait > max_wait:
        return None
    return wait


def error_for(
    response: httpx.Response, method: str, route: str, metrics: Metrics
) -> GitHubMCPError:
    """The structured error for a 4xx/5xx answer; a rate limit says when to come back."""
    status = response.status_code
    upstream = redact(message_of(response))[:300]
    if status in (403, 429) and (limited := _rate_limit_error(response, upstream, metrics)):
        return limited
    if status in (405, 409, 422):
        raw = raw_message(response)
        if is_rule_refusal(raw):
            return rule_violation(f"{method} {route}", rules_in(raw), status=status)
    detail = f" ({upstream})" if upstream else ""
    return GitHubMCPError(
        _STATUS_CODES.get(
            status, ErrorCode.UPSTREAM_ERROR if status >= 500 else ErrorCode.UNPROCESSABLE
        ),
        f"GitHub answered {status} to {method} {route}{detail}.",
        hint=_STATUS_HINTS.get(status),
        status=status,
    )


_STATUS_CODES = {
    401: ErrorCode.FORBIDDEN,
    403: ErrorCode.PERMISSION_DENIED,
    404: ErrorCode.NOT_FOUND,
    410: ErrorCode.NOT_FOUND,
    409: ErrorCode.CONFLICT,
    422: ErrorCode.UNPROCESSABLE,
    405: ErrorCode.UNPROCESSABLE,
}
_STATUS_HINTS = {
    401: "The GitHub credentials were rejected.",
    403: "GitHub refused this for lack of permission: the signed-in user (or the "
    "server's token) may not do this on the repository.",
    404: "Check the repository, ref and path (private repos also answer 404).",
}


def _rate_limit_error(
    response: httpx.Response, upstream: str, metrics: Metrics
) -> GitHubMCPError | None:
    """A 403/429 that is a rate limit: the primary one (when it resets) or a secondary one."""
    remaining = response.headers.get("x-ratelimit-remaining")
    reset = response.headers.get("x-ratelimit-reset")
    retry_after = response.headers.get("retry-after")
    if remaining == "0" and not retry_after:
        metrics.record_rate_limit_event("primary")
        reset_at = int(reset) if reset and reset.isdigit() else None
        wait = max(0, reset_at - int(time.time())) if reset_at else None
        clock = time.strftime("%H:%M:%SZ", time.gmtime(reset_at)) if reset_at else None
        when = f"; it resets at {clock}." if clock else "."
        return GitHubMCPError(
            ErrorCode.RATE_LIMITED,
            "GitHub's rate limit is exhausted" + when,
            retry_after=wait,
            reset_at=reset_at,
            hint="Wait for the reset; this server does not sleep through it.",
        )
    if retry_after or "secondary rate limit" in upstream.lower():
        backoff = float(retry_after) if retry_after and is_number(retry_after) else 60.0
        return GitHubMCPError(
            ErrorCode.RATE_LIMITED,
            "GitHub's secondary rate limit was hit.",
            retry_after=backoff,
            hint=f"Retry after {int(backoff)} s.",
        )
    return None


def graphql_error(first: dict[str, Any]) -> GitHubMCPError:
    """The structured error for a GraphQL answer's first error."""
    kind, message = first.get("type", ""), str(first.get("message", ""))
    if is_rule_refusal(message):
        return rule_violation("the GraphQL mutation", rules_in(message))
    code = ErrorCode.NOT_FOUND if kind == "NOT_FOUND" else ErrorCode.UNPROCESSABLE
    return GitHubMCPError(
        code,
        "GraphQL error: " + redact(message)[:300],
        hint=(
            "Check the names, numbers and ids in the arguments; GitHub's own words "
            "are in the message."
        ),
    )


def raw_message(response: httpx.Response) -> str:
    """The answer's JSON `message`, whole ("" when there is none)."""
    try:
        data = response.json()
    except ValueError:
        return ""
    message = data.get("message") if isinstance(data, dict) else None
    return message if isinstance(message, str) else ""


def message_of(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    if isinstance(data, dict):
        message = str(data.get("message", ""))
        errors = data.get("errors")
        if isinstance(errors, list) and errors:
            first = errors[0]
            extra = first.get("message") or first.get("code") if isinstance(first, dict) else first
            if extra:
                message = f"{message}: {extra}"
        return message
    return ""


def is_number(value: str) -> bool:
    try:
        float(value)
    except ValueError:
        return False
    return True
