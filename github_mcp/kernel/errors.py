"""Error codes and the ToolError envelope (docs/ARCHITECTURE.md, "One call, from the
transport to GitHub").

Services and the GitHub client raise `GitHubMCPError`; the server turns it into
an MCP tool error whose text and structured content are the same JSON envelope.
"""

from __future__ import annotations

import enum
from typing import Any


class ErrorCode(str, enum.Enum):
    INVALID_INPUT = "invalid_input"
    NOT_FOUND = "not_found"
    FORBIDDEN = "forbidden"
    # GitHub refused the caller's own permissions (403): e.g. a write by a user who may
    # only read the repository. The request is fine; the identity lacks the right.
    PERMISSION_DENIED = "permission_denied"
    WRITE_NOT_ALLOWED = "write_not_allowed"
    REPO_NOT_ALLOWED = "repo_not_allowed"
    CONFLICT = "conflict"
    # GitHub's repository rules or branch protection refused the change (the `rules`
    # detail lists them); retrying the same change cannot succeed.
    RULE_VIOLATION = "rule_violation"
    UNPROCESSABLE = "unprocessable"
    PATCH_DOES_NOT_APPLY = "patch_does_not_apply"
    RATE_LIMITED = "rate_limited"
    TIMEOUT = "timeout"
    BINARY_FILE = "binary_file"
    NOT_A_FILE = "not_a_file"
    UPSTREAM_ERROR = "upstream_error"
    INTERNAL = "internal"
    # The workspace sandbox cannot start on this host; the hint names the fix.
    WORKSPACE_UNAVAILABLE = "workspace_unavailable"
    # A workspace quota (clones or disk per user) is used up; the hint says how to free it.
    QUOTA_EXCEEDED = "quota_exceeded"
    # Shared state (Redis) is unreachable: a write whose coordination cannot happen is
    # refused rather than made uncoordinated. Retry once the service is back.
    UNAVAILABLE = "unavailable"


# Codes a client may retry without changing its request.
_RETRYABLE = {
    ErrorCode.RATE_LIMITED,
    ErrorCode.TIMEOUT,
    ErrorCode.UPSTREAM_ERROR,
    ErrorCode.UNAVAILABLE,
}


class GitHubMCPError(Exception):
    """A failure with a stable code, a short sanitised message and an optional hint.

    `details` are extra JSON-safe fields placed in the envelope (for example
    `total_bytes`, `magic_hex`, `retry_after`, `hunk`).
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        hint: str | None = None,
        retryable: bool | None = None,
        **details: Any,
    ) -> None:
        super().__init__(message)
        self.code = ErrorCode(code)
        self.message = message
        self.hint = hint
        self.retryable = (self.code in _RETRYABLE) if retryable is None else retryable
        self.details = {k: v for k, v in details.items() if v is not None}

    def envelope(self, call_id: str | None = None) -> dict[str, Any]:
        body: dict[str, Any] = {
            "code": self.code.value,
            "message": self.message,
            "retryable": self.retryable,
        }
        if self.hint:
            body["hint"] = self.hint
        body.update(self.details)
        if call_id:
            body["call_id"] = call_id
        return {"error": body}


def invalid_input(message: str, **kw: Any) -> GitHubMCPError:
    return GitHubMCPError(ErrorCode.INVALID_INPUT, message, **kw)


# Hints for helpers whose fix is the same wherever they are raised; a caller's own
# `hint=` replaces them. invalid_input has none: each site says which argument to fix.
NOT_FOUND_HINT = (
    "Check the name, number, path or ref; the repository must be on this server's "
    "allow-list and visible to its token."
)
CONFLICT_HINT = "Read the current state again (e.g. the branch head) and retry with fresh values."


def not_found(message: str, **kw: Any) -> GitHubMCPError:
    kw.setdefault("hint", NOT_FOUND_HINT)
    return GitHubMCPError(ErrorCode.NOT_FOUND, message, **kw)


def conflict(message: str, **kw: Any) -> GitHubMCPError:
    kw.setdefault("hint", CONFLICT_HINT)
    return GitHubMCPError(ErrorCode.CONFLICT, message, **kw)
