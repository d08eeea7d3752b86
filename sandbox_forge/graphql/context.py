"""What every GraphQL resolver shares: the request context (who asks, with what access),
GitHub's typed errors, and cursor pagination over connections."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from typing import Any

from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.auth import Principal, can_read, can_write
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

MAX_PAGE = 100


class GQLFailure(Exception):
    """An error GitHub reports with a `type` (NOT_FOUND, FORBIDDEN, STALE_DATA…)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Context:
    state: ForgeState
    principal: Principal
    urls: Urls

    def readable(self, repo: RepoRecord | None) -> bool:
        return repo is not None and can_read(self.principal, repo)

    def require_write(self, repo: RepoRecord, mutation: str) -> None:
        if not can_write(self.principal, repo):
            login = self.principal.login or "anonymous"
            if self.principal.token is not None and self.principal.token.access == "read":
                raise GQLFailure("FORBIDDEN", self.principal.forbidden_message)
            raise GQLFailure(
                "FORBIDDEN",
                f"{login} does not have the correct permissions to execute `{mutation}`",
            )


# --- cursors and connections -----------------------------------------------------------------


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _index(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(base64.b64decode(cursor).decode().rsplit(":", 1)[1])
    except (binascii.Error, UnicodeDecodeError, ValueError, IndexError):
        raise GQLFailure(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from None


def connection(
    items: list[Any],
    name: str,
    first: int | None,
    last: int | None,
    after: str | None,
    before: str | None,
    skip: int | None = None,
) -> dict[str, Any]:
    if first is None and last is None:
        raise GQLFailure(
            "MISSING_PAGINATION_BOUNDARIES",
            "You must provide a `first` or `last` value to properly paginate the "
            f"`{name}` connection.",
        )
    for value, arg in ((first, "first"), (last, "last")):
        if value is not None and value > MAX_PAGE:
            raise GQLFailure(
                "EXCESSIVE_PAGINATION",
                f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` "
                f"limit of {MAX_PAGE} records.",
            )
        if value is not None and value < 0:
            raise GQLFailure(
                "INVALID_PAGINATION",
                f"`{arg}` on the `{name}` connection cannot be less than zero.",
            )
    indexed = list(enumerate(items))
    start_after, end_before = _index(after), _index(before)
    if start_after is not None:
        indexed = [(i, x) for i, x in indexed if i > start_after]
    if end_before is not None:
        indexed = [(i, x) for i, x in indexed if i < end_before]
    if skip:
        indexed = indexed[skip:]
    window = indexed
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    first_index = window[0][0] if window else None
    last_index = window[-1][0] if window else None
    return {
        "edges": [{"cursor": _cursor(i), "node": x} for i, x in window],
        "nodes": [x for _, x in window],
        "totalCount": len(items),
        "pageInfo": {
            "startCursor": _cursor(first_index) if first_index is not None else None,
            "endCursor": _cursor(last_index) if last_index is not None else None,
            "hasNextPage": bool(indexed) and last_index is not None and last_index < indexed[-1][0],
            "hasPreviousPage": bool(indexed)
            and first_index is not None
            and first_index > indexed[0][0],
        },
    }
