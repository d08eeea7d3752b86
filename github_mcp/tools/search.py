"""search and fetch, in the shapes ChatGPT connectors expect.

search returns {results: [{id, title, url}]}; fetch(id) turns one of those ids
(a file at a SHA, an issue, a PR, a commit, a repository) into readable text.
The id grammar, the query scoping and the reads live in services.documents."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.params import Cursor, FullName
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import search as documents
from github_mcp.services.shared.rate_state import RateLimitState, low_rate_limit

TOOLSET = "search"


class SearchHit(BaseModel):
    id: str
    title: str
    url: str


class SearchResults(BaseModel):
    results: list[SearchHit]
    total: int | None = None
    next_cursor: str | None = None
    rate_limit: RateLimitState | None = None  # only when little is left


@tool(toolset=TOOLSET)
async def search(
    call: Call,
    query: Annotated[str, Field(min_length=1, max_length=256)],
    kind: Literal["code", "issues", "pulls", "repos", "commits"] = "code",
    full_name: FullName | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
    cursor: Cursor | None = None,
) -> SearchResults:
    """Search code, issues, pull requests, repositories or commits with GitHub's qualifiers;
    fetch(id) reads a hit."""
    gate = call.rt.gate
    found = await documents.search(
        call.rt.github,
        query,
        kind,
        full_name,
        limit,
        repo_allowed=gate.repo_allowed,
        allowlist_active=bool(call.rt.settings.allowlist),
        cursor=cursor,
    )
    return SearchResults(
        results=[SearchHit(**hit) for hit in found.hits],
        total=found.total,
        next_cursor=found.next_cursor,
        rate_limit=low_rate_limit(call.rt.metrics.rate_limit),
    )


class Document(BaseModel):
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any]


@tool(toolset=TOOLSET, repo_arg=None)
async def fetch(call: Call, id: Annotated[str, Field(min_length=3, max_length=4500)]) -> Document:
    """Read one search result (file, issue, PR, commit or repository) as text."""
    doc = documents.parse_document_id(id)
    call.rt.gate.check_repo_allowed(doc.full_name)
    call.repo = doc.full_name
    found = await documents.fetch_document(call.rt.github, call.rt.settings.web_base_url, doc)
    return Document(id=id, **found)
