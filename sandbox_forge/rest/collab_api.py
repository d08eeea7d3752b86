"""Endpoint helpers the collaboration routes share, beside api.py's `Ctx`: lists wrapped
in `{total_count, key: [...]}`, 404 lookups, `since` filters and 201 answers."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, TypeVar

from starlette.responses import Response

from sandbox_forge.kernel.errors import json_response, not_found
from sandbox_forge.kernel.formats import iso
from sandbox_forge.rest.api import Ctx
from sandbox_forge.stores.lookups import page_window

K = TypeVar("K")
V = TypeVar("V")


def wrapped_page(ctx: Ctx, key: str, items: list[Any], shape: Callable[[Any], Any]) -> Response:
    """One page of items as `{"total_count": n, key: [...]}`, with the Link header."""
    page, per_page = ctx.page()
    data = {"total_count": len(items), key: [shape(i) for i in page_window(items, page, per_page)]}
    return ctx.paged_response(data, page, per_page, len(items))


def found_or_404(items: Mapping[K, V], key: K) -> V:
    value = items.get(key)
    if value is None:
        raise not_found()
    return value


def updated_since(items: list[Any], since: str | None) -> list[Any]:
    """The items updated at or after `since` (an ISO time); all of them without one."""
    if not since:
        return items
    return [i for i in items if iso(i.updated_at) >= since.replace("+00:00", "Z")]


def created_response(data: dict[str, Any]) -> Response:
    """201 with the new resource, and its URL in Location."""
    return json_response(data, status=201, headers={"location": data["url"]})
