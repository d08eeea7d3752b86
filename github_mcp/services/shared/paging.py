"""Opaque offset cursors, for tools that page over a list they built themselves."""

from __future__ import annotations

from github_mcp.github.urls import decode_cursor, encode_cursor
from github_mcp.kernel.errors import invalid_input

__all__ = ["cursor_for_offset", "offset_from_cursor"]


def offset_from_cursor(cursor: str | None) -> int:
    """The offset a cursor from `cursor_for_offset` stands for; 0 for no cursor."""
    value = decode_cursor(cursor).get("offset", 0)
    if not isinstance(value, int) or value < 0:
        raise invalid_input("cursor is not valid", hint="Pass next_cursor unchanged.")
    return value


def cursor_for_offset(offset: int | None) -> str | None:
    """A cursor for the page starting at `offset`; None when there is no next page."""
    return encode_cursor({"offset": offset}) if offset else None
