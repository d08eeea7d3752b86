"""How a tool's schemas are shown in tools/list, and how they are kept for validation.

The listing is context a model pays for on every turn, so it says what a caller needs to
build a call and nothing the server checks on its own: types, required fields, enums,
defaults, numeric and item bounds, short patterns and one-line descriptions stay; string
length caps (resource limits, not meaning), patterns longer than LISTED_PATTERN (the
field's description names the shape), `additionalProperties: false` (an unknown argument
is refused with invalid_input all the same), `default: false` of an optional flag and
pydantic's class titles go. The arguments most tools share (SHARED) are described once, in
the server's instructions, instead of in every tool. The server applies every rule, and
`validate_tool_args` and `describe_tool` use the whole schema.
"""

from __future__ import annotations

from typing import Any

# A pattern longer than this is left to the description and the server's own validation:
# a model does little with 80 characters of regular expression.
LISTED_PATTERN = 40
_LENGTH_CAPS = ("minLength", "maxLength")
# argument name -> what it is, said once (SHARED_NOTE, in the server's instructions)
SHARED = {
    "full_name": "owner/repo",
    "pr": "owner/repo#N or PR URL",
    "path": "repo-relative",
    "cursor": "from next_cursor",
}
SHARED_NOTE = (
    "Arguments shared by the tools: full_name is 'owner/repo'; pr is 'owner/repo#N' or a PR "
    "URL (or give full_name and number); path is relative to the repository root; cursor "
    "is the next_cursor of the previous page; an optional boolean is false unless given."
)


def validation_schema(node: Any) -> Any:
    """The whole schema, with optional-null unions flattened (what the server accepts)."""
    return _compact(node, listing=False)


def listed_schema(node: Any) -> Any:
    """The schema as tools/list shows it (see the module docstring)."""
    listed = _compact(node, listing=True)
    properties = listed.get("properties") if isinstance(listed, dict) else None
    for name, field in (properties or {}).items():
        if name in SHARED and isinstance(field, dict) and field.get("description") == SHARED[name]:
            field.pop("description")
    return listed


def _compact(node: Any, *, listing: bool) -> Any:
    """`anyOf: [X, null]` with `default: null` becomes X (the field stays optional, and
    outputs never carry nulls); in a listing, the rules of the module docstring apply."""
    if isinstance(node, list):
        return [_compact(item, listing=listing) for item in node]
    if not isinstance(node, dict):
        return node
    out = {key: _compact(value, listing=listing) for key, value in node.items()}
    if listing:
        _trim(out)
    variants = out.get("anyOf")
    if isinstance(variants, list) and len(variants) == 2 and {"type": "null"} in variants:
        other = next(v for v in variants if v != {"type": "null"})
        if isinstance(other, dict) and out.get("default", None) is None:
            out.pop("anyOf")
            out.pop("default", None)
            out = {**other, **out}
    return out


def _trim(schema: dict[str, Any]) -> None:
    """Drop, in place, what a listing leaves to the server (keys whose value is a schema
    keyword's, never a property of that name: those are dicts)."""
    pattern = schema.get("pattern")
    if isinstance(pattern, str) and len(pattern) > LISTED_PATTERN:
        schema.pop("pattern")
    if schema.get("type") == "string" or "pattern" in schema:
        for cap in _LENGTH_CAPS:
            if isinstance(schema.get(cap), int):
                schema.pop(cap)
    if isinstance(schema.get("title"), str):
        schema.pop("title")
    if schema.get("additionalProperties") is False:
        schema.pop("additionalProperties")
    if schema.get("type") == "boolean" and schema.get("default") is False:
        schema.pop("default")
