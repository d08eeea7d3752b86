"""Shared, validated parameter types for tool signatures.

Validation happens in the tool's input schema and in pydantic before any
GitHub call, so bad input never costs a request.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import AfterValidator, BeforeValidator, Field

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import hidden_characters, make_visible, strip_invisible
from github_mcp.kernel.refnames import REF_SCHEMA_PATTERN, canonical_any_ref, canonical_branch

FULL_NAME_RE = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
# JSON-schema forms of the checks below (valid in ECMA-262 and Python `re`).
FULL_NAME_SCHEMA_PATTERN = r"^\s*(?!\.+/)[A-Za-z0-9_.-]+/(?!\.+\s*$)[A-Za-z0-9_.-]+\s*$"
PATH_SCHEMA_PATTERN = r"^(?!/)(?![\s\S]*[\\\x00])(?![\s\S]*(?:^|/)\.\.?(?:/|$))"
PR_URL_RE = re.compile(
    r"^https?://[^/\s]+/(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)/pull/(?P<number>\d+)"
    r"(?:[/?#].*)?$"
)
PR_SHORT_RE = re.compile(r"^(?P<owner>[A-Za-z0-9_.-]+)/(?P<repo>[A-Za-z0-9_.-]+)#(?P<number>\d+)$")

MAX_FILE_BYTES = 2 * 1024 * 1024
MAX_MESSAGE_CHARS = 10_000
MAX_TITLE_CHARS = 300
MAX_BODY_CHARS = 65_536
MAX_LABELS = 20
MAX_BATCH_PATHS = 30
MAX_COMMIT_FILES = 100


def _strip(value: object) -> object:
    return value.strip() if isinstance(value, str) else value


def _strip_invisible(value: object) -> object:
    return strip_invisible(value) if isinstance(value, str) else value


def check_full_name(value: str) -> str:
    if (
        len(value) > 140
        or not FULL_NAME_RE.match(value)
        or any(not part.strip(".") for part in value.split("/"))
    ):
        raise ValueError("full_name must look like 'owner/repo'")
    return value


def check_ref(value: str) -> str:
    """A branch, tag or SHA in its canonical spelling (see refnames); raises ValueError."""
    return canonical_any_ref(value)


def check_path(value: str) -> str:
    if len(value) > 4096:
        raise ValueError("path must be at most 4096 characters")
    if "\\" in value or "\x00" in value:
        raise ValueError("path must not contain backslashes or NUL")
    if value.startswith("/"):
        raise ValueError("path must be relative to the repository root (no leading '/')")
    if any(seg in (".", "..") for seg in value.split("/")):
        raise ValueError("path must not contain '.' or '..' segments")
    hidden = hidden_characters(value)
    if hidden:  # a U+202E shows `evil\u202etxt.sh` to a human as `evilhs.txt`
        raise ValueError(
            f"path {make_visible(value)[:200]!r} contains invisible, direction-changing or "
            f"control characters ({', '.join(hidden[:5])}); use a plainly readable name"
        )
    return value


def validate_path(value: str) -> str:
    """Validate a path outside pydantic (batch inputs), raising invalid_input."""
    try:
        return check_path(value)
    except ValueError as exc:
        raise invalid_input(
            f"{exc}: {value[:200]!r}",
            hint=(
                "Give a path relative to the repository root with '/' separators, "
                "without '..', '.' or empty segments."
            ),
        ) from None


# SEP-2243: a 2026-07-28 client over HTTP mirrors these arguments into `Mcp-Param-*`
# headers (the repository, or the pull request naming it), so a gateway routes or
# rate-limits by repository without reading bodies; the HTTP layer refuses a header that
# differs from the body (-32020 HeaderMismatch).
REPO_HEADERS = {"full_name": "Repository", "pr": "Pr"}
X_MCP_HEADER = "x-mcp-header"


def declare_repo_headers(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` (a tool's input schema) with its repository arguments declared as headers:
    only a top-level string property may carry one (the spec's "statically reachable",
    primitive rule; an annotation anywhere else makes clients drop the whole tool)."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    declared = dict(properties)
    for name, header in REPO_HEADERS.items():
        field = properties.get(name)
        if isinstance(field, dict) and field.get("type") == "string":
            declared[name] = {**field, X_MCP_HEADER: header}
    return {**schema, "properties": declared}


def without_repo_headers(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` without the header declarations: over stdio no HTTP header is sent, and
    the annotation would only cost the model's context."""
    properties = schema.get("properties")
    if not isinstance(properties, dict) or not any(
        isinstance(f, dict) and X_MCP_HEADER in f for f in properties.values()
    ):
        return schema
    bare = {
        name: {k: v for k, v in field.items() if k != X_MCP_HEADER}
        if isinstance(field, dict)
        else field
        for name, field in properties.items()
    }
    return {**schema, "properties": bare}


FullName = Annotated[
    str,
    BeforeValidator(_strip),
    AfterValidator(check_full_name),
    Field(
        description="owner/repo",
        min_length=3,
        max_length=140,
        json_schema_extra={"pattern": FULL_NAME_SCHEMA_PATTERN},
    ),
]
# The schema carries the rules (pattern, lengths) so clients and validate_tool_args see
# them; the validators stay the authority and give the canonical spelling.
Ref = Annotated[
    str,
    AfterValidator(canonical_any_ref),
    Field(
        description="branch, tag or SHA",
        min_length=1,
        max_length=255,
        json_schema_extra={"pattern": REF_SCHEMA_PATTERN},
    ),
]
Branch = Annotated[
    str,
    AfterValidator(canonical_branch),
    Field(
        min_length=1,
        max_length=255,
        json_schema_extra={"pattern": REF_SCHEMA_PATTERN},
    ),
]
# A tag name obeys git's ref-name rules, as a branch name does.
Tag = Annotated[
    str,
    AfterValidator(canonical_branch),
    Field(
        description="Tag name, e.g. v1.4.0.",
        min_length=1,
        max_length=255,
        json_schema_extra={"pattern": REF_SCHEMA_PATTERN},
    ),
]
RepoPath = Annotated[
    str,
    AfterValidator(check_path),
    Field(
        description="repo-relative",
        max_length=4096,
        json_schema_extra={"pattern": PATH_SCHEMA_PATTERN},
    ),
]
Limit = Annotated[int, Field(ge=1, le=100)]
Sha = Annotated[str, Field(pattern=r"^[0-9a-f]{40}$")]
# how long a tool waits on GitHub (a run, a check, a mergeability answer)
TimeoutSeconds = Annotated[float, Field(ge=0, le=600, description="max wait")]
PollSeconds = Annotated[float, Field(ge=0.05, le=60, description="first poll wait, grows 1.5x")]
Cursor = Annotated[str, Field(max_length=512, description="from next_cursor")]
# Commit messages lose invisible and direction-changing characters, as issue text does.
CommitMessage = Annotated[
    str, BeforeValidator(_strip_invisible), Field(min_length=1, max_length=MAX_MESSAGE_CHARS)
]
Title = Annotated[str, Field(min_length=1, max_length=MAX_TITLE_CHARS)]
Body = Annotated[str, Field(max_length=MAX_BODY_CHARS)]


def _check_content_bytes(value: str) -> str:
    if len(value.encode("utf-8", "surrogatepass")) > MAX_FILE_BYTES:
        raise ValueError("file content must be at most 2 MiB")
    return value


FileContent = Annotated[str, Field(max_length=MAX_FILE_BYTES), AfterValidator(_check_content_bytes)]
Labels = Annotated[
    list[Annotated[str, Field(min_length=1, max_length=100)]], Field(max_length=MAX_LABELS)
]
PrRef = Annotated[
    str,
    BeforeValidator(_strip),
    Field(
        max_length=400,
        description="owner/repo#N or PR URL",
    ),
]


def parse_pr_ref(value: str) -> tuple[str, int]:
    """Split 'owner/repo#N' or a PR URL into (full_name, number)."""
    match = PR_SHORT_RE.match(value) or PR_URL_RE.match(value)
    if not match:
        raise invalid_input(
            "pr must look like 'owner/repo#123' or a pull request URL",
            hint="Or pass full_name and number.",
        )
    full_name = f"{match['owner']}/{match['repo']}"
    check_full_name(full_name)
    return full_name, int(match["number"])
