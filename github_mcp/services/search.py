"""search hits and fetch documents: a strict id grammar, scoped queries, readable text.

An id names one thing in one repository, and nothing in it reaches a URL unchecked:

    file:OWNER/REPO@REF:PATH     REF by the shared ref rules, PATH a clean relative path
    issue:OWNER/REPO#N           N a positive integer (pr:... the same)
    commit:OWNER/REPO@SHA        SHA 7-64 hex digits
    repo:OWNER/REPO

The caller checks the allow-list on `DocumentId.full_name` before `fetch_document`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypedDict

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.kernel.params import validate_path
from github_mcp.kernel.refnames import canonical_any_ref
from github_mcp.services.issues import issues
from github_mcp.services.shared import files
from github_mcp.services.shared import repo_facts as repos
from github_mcp.services.shared.content import cut_text

FETCH_TEXT_BYTES = 60_000
MAX_ISSUE_NUMBER = 2**31 - 1
_OWNER = r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})"
_REPO = r"(?!\.{1,2}(?:[@#:]|$))[A-Za-z0-9_.-]{1,100}"
_FULL = rf"(?P<full_name>{_OWNER}/{_REPO})"
_REPO_ID = re.compile(rf"^(?P<kind>repo):{_FULL}$")
_NUMBER_ID = re.compile(rf"^(?P<kind>issue|pr):{_FULL}#(?P<number>\d{{1,10}})$")
_COMMIT_ID = re.compile(rf"^(?P<kind>commit):{_FULL}@(?P<sha>[0-9a-fA-F]{{7,64}})$")
# A ref never holds ':' (the ref rules refuse it), so the first ':' after '@' ends it.
_FILE_ID = re.compile(rf"^(?P<kind>file):{_FULL}@(?P<ref>[^:]+):(?P<path>.+)$")
_ID_FORMS = (
    "file:owner/repo@ref:path, issue:owner/repo#12, pr:owner/repo#12, "
    "commit:owner/repo@sha or repo:owner/repo"
)


@dataclass(frozen=True)
class DocumentId:
    kind: str
    full_name: str
    ref: str | None = None
    path: str | None = None
    number: int | None = None


def parse_document_id(value: str) -> DocumentId:
    """Parse an id from search results, refusing anything outside the grammar."""
    for pattern in (_FILE_ID, _NUMBER_ID, _COMMIT_ID, _REPO_ID):
        match = pattern.match(value)
        if match:
            break
    else:
        raise invalid_input("id is not one that search returns", hint=f"Ids look like {_ID_FORMS}.")
    kind, full_name = match["kind"], match["full_name"]
    if kind == "file":
        try:
            ref = canonical_any_ref(match["ref"])
        except ValueError as exc:
            raise invalid_input(
                f"the ref in this file id is invalid: {exc}",
                hint=(
                    "Use the file id as given by search or list results, with a valid "
                    "branch, tag or SHA."
                ),
            ) from None
        return DocumentId(kind, full_name, ref=ref, path=validate_path(match["path"]))
    if kind in ("issue", "pr"):
        number = int(match["number"])
        if not 1 <= number <= MAX_ISSUE_NUMBER:
            raise invalid_input(
                "issue and pull request numbers are positive integers",
                hint=(
                    "Use an id like issue:owner/repo#12 or pr:owner/repo#12, with a number "
                    "of 1 or more."
                ),
            )
        return DocumentId(kind, full_name, number=number)
    if kind == "commit":
        return DocumentId(kind, full_name, ref=match["sha"].lower())
    return DocumentId(kind, full_name)


class FetchedDocument(TypedDict):
    """One document as text; the fetch tool's Document adds the id."""

    title: str
    text: str
    url: str
    metadata: dict[str, Any]


async def fetch_document(
    github: GitHubClient, web_base_url: str, doc: DocumentId
) -> FetchedDocument:
    """The document an id names: {title, text, url, metadata}."""
    if doc.kind == "file":
        return await _fetch_file(github, web_base_url, doc)
    if doc.kind in ("issue", "pr"):
        return await _fetch_issue(github, doc)
    if doc.kind == "commit":
        return await _fetch_commit(github, doc)
    return await _fetch_repo(github, doc)


async def _fetch_file(github: GitHubClient, web_base_url: str, doc: DocumentId) -> FetchedDocument:
    repo = doc.full_name
    assert doc.ref is not None and doc.path is not None
    read = await files.read_file(github, repo, doc.path, doc.ref, max_bytes=FETCH_TEXT_BYTES)
    return {
        "title": f"{repo}: {doc.path}",
        "text": read.content,
        "url": files.blob_url(web_base_url, repo, read.commit_sha, doc.path),
        "metadata": {
            "sha": read.sha,
            "commit": read.commit_sha,
            "truncated": read.truncated,
            "total_bytes": read.total_bytes,
        },
    }


async def _fetch_issue(github: GitHubClient, doc: DocumentId) -> FetchedDocument:
    """An issue or PR: its title and body (invisible characters stripped)."""
    assert doc.number is not None
    issue = await issues.get_issue(github, doc.full_name, doc.number)
    body, cut = cut_text(strip_invisible(issue.get("body") or ""), FETCH_TEXT_BYTES)
    title = strip_invisible(issue.get("title") or "")
    return {
        "title": title,
        "text": f"# {title}\n\n{body}",
        "url": issue["html_url"],
        "metadata": {
            "state": issue["state"],
            "number": issue["number"],
            "author": user["login"] if (user := issue.get("user")) else None,
            "labels": [label["name"] for label in issue.get("labels", [])],
            "truncated": cut,
        },
    }


async def _fetch_commit(github: GitHubClient, doc: DocumentId) -> FetchedDocument:
    """A commit: its message and one line per changed file."""
    assert doc.ref is not None
    data = await repos.get_commit(github, doc.full_name, doc.ref)
    message = strip_invisible(data["commit"]["message"])
    files_changed = "\n".join(
        f"{f['status']}: {f['filename']} (+{f.get('additions', 0)}/-{f.get('deletions', 0)})"
        for f in data.get("files", [])
    )
    text, cut = cut_text(f"{message}\n\n{files_changed}", FETCH_TEXT_BYTES)
    return {
        "title": message.split("\n", 1)[0][:200],
        "text": text,
        "url": data.get("html_url", ""),
        "metadata": {
            "sha": data["sha"],
            "truncated": cut,
            "author": who["login"] if (who := data.get("author")) else None,
        },
    }


async def _fetch_repo(github: GitHubClient, doc: DocumentId) -> FetchedDocument:
    found = await repos.get_repo(github, doc.full_name)
    return {
        "title": found["full_name"],
        "text": f"{found['full_name']}: {found.get('description') or ''}\n"
        f"default branch: {found['default_branch']}",
        "url": found["html_url"],
        "metadata": {"private": found["private"], "default_branch": found["default_branch"]},
    }


# -- search ---------------------------------------------------------------------------

_ENDPOINTS = {
    "code": "code",
    "issues": "issues",
    "pulls": "issues",
    "repos": "repositories",
    "commits": "commits",
}
_SCOPE_QUALIFIER = re.compile(r"(?<!\S)(-?)(repo|user|org):(\"[^\"]*\"|\S+)", re.IGNORECASE)


@dataclass
class SearchHits:
    hits: list[dict[str, str]]
    total: int | None
    next_cursor: str | None = None


async def search(
    github: GitHubClient,
    query: str,
    kind: str,
    full_name: str | None,
    limit: int,
    repo_allowed: Callable[[str], bool],
    allowlist_active: bool,
    cursor: str | None = None,
) -> SearchHits:
    """One page of search hits inside the allow-list.

    A `repo:`, `user:` or `org:` qualifier naming something outside the allow-list is
    refused before any request. GitHub's total counts every match of the query, so it is
    reported only when the query is confined to allowed repositories (or there is no
    allow-list); otherwise it would count hits the caller may not see."""
    scopes = _scopes(query)
    for qualifier, value in scopes:
        target = value if qualifier == "repo" else f"{value}/*"
        if not repo_allowed(target):
            raise GitHubMCPError(
                ErrorCode.REPO_NOT_ALLOWED,
                f"The query's {qualifier}:{value} is outside this server's allow-list.",
                hint="Search within allowed repositories (give full_name).",
            )
    q = query
    if full_name and f"repo:{full_name}".lower() not in query.lower():
        q = f"{query} repo:{full_name}"
        scopes.append(("repo", full_name))
    if kind in ("issues", "pulls"):
        q += " is:pr" if kind == "pulls" else " is:issue"
    page = await github.paginate(
        f"/search/{_ENDPOINTS[kind]}",
        params={"q": q},
        limit=limit,
        cursor=cursor,
        items_key="items",
    )
    hits = []
    for item in page.items[:limit]:
        hit = search_hit(kind, item)
        if hit and repo_allowed(parse_document_id(hit["id"]).full_name):
            hits.append(hit)
    confined = bool(scopes) or not allowlist_active
    total = page.total if confined else None
    return SearchHits(hits=hits, total=total, next_cursor=page.next_cursor)


def _scopes(query: str) -> list[tuple[str, str]]:
    """The positive repo:/user:/org: qualifiers of a query, as (qualifier, value)."""
    return [
        (name.lower(), value.strip('"'))
        for negated, name, value in _SCOPE_QUALIFIER.findall(query)
        if not negated
    ]


def search_hit(kind: str, item: dict[str, Any]) -> dict[str, str] | None:
    """A search API item as {id, title, url}, or None when it is not one we can fetch."""
    try:
        if kind == "code":
            repo = item["repository"]["full_name"]
            ref = _ref_from_url(item.get("url", "")) or item.get("sha") or ""
            hit = {
                "id": f"file:{repo}@{ref}:{item['path']}",
                "title": f"{repo}: {item['path']}",
                "url": item.get("html_url", ""),
            }
        elif kind in ("issues", "pulls"):
            repo = "/".join(item["repository_url"].rstrip("/").split("/")[-2:])
            prefix = "pr" if "pull_request" in item else "issue"
            hit = {
                "id": f"{prefix}:{repo}#{item['number']}",
                "title": strip_invisible(item.get("title", ""))[:200],
                "url": item.get("html_url", ""),
            }
        elif kind == "repos":
            name = item["full_name"]
            hit = {"id": f"repo:{name}", "title": name, "url": item.get("html_url", "")}
        else:
            repo = item["repository"]["full_name"]
            message = (item.get("commit", {}).get("message") or "").split("\n", 1)[0]
            hit = {
                "id": f"commit:{repo}@{item['sha']}",
                "title": strip_invisible(message)[:200],
                "url": item.get("html_url", ""),
            }
        parse_document_id(hit["id"])  # only ids that fetch accepts
    except (KeyError, TypeError, AttributeError, GitHubMCPError):
        return None
    return hit


def _ref_from_url(url: str) -> str | None:
    match = re.search(r"[?&]ref=([0-9a-f]{40})", url)
    return match.group(1) if match else None
