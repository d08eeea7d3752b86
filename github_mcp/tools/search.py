"""search and fetch, in the shapes ChatGPT connectors expect.

search returns {results: [{id, title, url}]}; fetch(id) turns one of those ids
(a file at a SHA, an issue, a PR, a commit, a repository) into readable text."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from ..errors import ErrorCode, GitHubMCPError, invalid_input
from ..params import FULL_NAME_RE, FullName, validate_path
from ..registry import Call, tool
from ..services import account, files, issues, repos
from ..services.content import cut_text, strip_invisible

TOOLSET = "search"
FETCH_TEXT_BYTES = 60_000
_ID_RE = re.compile(
    r"^(?P<kind>file|issue|pr|commit|repo):(?P<repo>[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+)"
    r"(?:(?P<sep>[#@])(?P<ref>[^:]+))?(?::(?P<path>.+))?$"
)


class SearchHit(BaseModel):
    id: str
    title: str
    url: str


class SearchResults(BaseModel):
    results: list[SearchHit]
    total: int | None = None


def _qualify(query: str, full_name: str | None) -> str:
    if full_name and f"repo:{full_name}".lower() not in query.lower():
        return f"{query} repo:{full_name}"
    return query


@tool(toolset=TOOLSET)
async def search(
    call: Call,
    query: Annotated[str, Field(min_length=1, max_length=256)],
    kind: Literal["code", "issues", "pulls", "repos", "commits"] = "code",
    full_name: FullName | None = None,
    limit: Annotated[int, Field(ge=1, le=50)] = 10,
) -> SearchResults:
    """Search code, issues, pull requests, repositories or commits; fetch(id) reads a hit."""
    github = call.rt.github
    q = _qualify(query, full_name)
    if kind in ("issues", "pulls"):
        q += " is:pr" if kind == "pulls" else " is:issue"
    endpoint = {
        "code": "code",
        "issues": "issues",
        "pulls": "issues",
        "repos": "repositories",
        "commits": "commits",
    }[kind]
    data = await account.search(github, endpoint, q, limit)
    items = data.get("items", [])
    hits: list[SearchHit] = []
    for item in items[:limit]:
        hit = _hit(kind, item)
        if hit and _allowed(call, hit.id):
            hits.append(hit)
    return SearchResults(results=hits, total=data.get("total_count"))


def _allowed(call: Call, hit_id: str) -> bool:
    match = _ID_RE.match(hit_id)
    return bool(match) and call.rt.gate.repo_allowed(match["repo"])


def _hit(kind: str, item: dict[str, Any]) -> SearchHit | None:
    if kind == "code":
        repo = item["repository"]["full_name"]
        sha = item.get("sha") or ""
        ref = _ref_from_url(item.get("url", "")) or sha
        return SearchHit(
            id=f"file:{repo}@{ref}:{item['path']}",
            title=f"{repo}: {item['path']}",
            url=item.get("html_url", ""),
        )
    if kind in ("issues", "pulls"):
        repo = "/".join(item["repository_url"].rstrip("/").split("/")[-2:])
        prefix = "pr" if "pull_request" in item else "issue"
        return SearchHit(
            id=f"{prefix}:{repo}#{item['number']}",
            title=strip_invisible(item.get("title", ""))[:200],
            url=item.get("html_url", ""),
        )
    if kind == "repos":
        return SearchHit(
            id=f"repo:{item['full_name']}", title=item["full_name"], url=item.get("html_url", "")
        )
    repo = item["repository"]["full_name"]
    message = (item.get("commit", {}).get("message") or "").split("\n", 1)[0]
    return SearchHit(
        id=f"commit:{repo}@{item['sha']}", title=message[:200], url=item.get("html_url", "")
    )


def _ref_from_url(url: str) -> str | None:
    match = re.search(r"[?&]ref=([0-9a-f]{40})", url)
    return match.group(1) if match else None


class Document(BaseModel):
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any]


@tool(toolset=TOOLSET, repo_arg=None)
async def fetch(call: Call, id: Annotated[str, Field(min_length=3, max_length=4500)]) -> Document:
    """Read one search result (file, issue, PR, commit or repository) as text."""
    match = _ID_RE.match(id)
    if not match or not FULL_NAME_RE.match(match["repo"]):
        raise invalid_input(
            "id is not one that search returned",
            hint="Use an id from search results, e.g. 'issue:owner/repo#12'.",
        )
    kind, repo, ref, path = match["kind"], match["repo"], match["ref"], match["path"]
    call.rt.gate.check_repo_allowed(repo)
    call.repo = repo
    github = call.rt.github
    if kind == "file":
        if not ref or not path:
            raise invalid_input("file ids look like 'file:owner/repo@ref:path'")
        validate_path(path)
        read = await files.read_file(github, repo, path, ref, max_bytes=FETCH_TEXT_BYTES)
        return Document(
            id=id,
            title=f"{repo}: {path}",
            text=read.content,
            url=files.blob_url(call.rt.settings.web_base_url, repo, read.commit_sha, path),
            metadata={
                "sha": read.sha,
                "commit": read.commit_sha,
                "truncated": read.truncated,
                "total_bytes": read.total_bytes,
            },
        )
    if kind in ("issue", "pr"):
        if not ref or not ref.isdigit():
            raise invalid_input("issue and pr ids look like 'issue:owner/repo#12'")
        issue = await issues.get_issue(github, repo, int(ref))
        body, cut = cut_text(strip_invisible(issue.get("body") or ""), FETCH_TEXT_BYTES)
        title = strip_invisible(issue.get("title") or "")
        return Document(
            id=id,
            title=title,
            text=f"# {title}\n\n{body}",
            url=issue["html_url"],
            metadata={
                "state": issue["state"],
                "number": issue["number"],
                "author": (issue.get("user") or {}).get("login"),
                "labels": [lb["name"] for lb in issue.get("labels", [])],
                "truncated": cut,
            },
        )
    if kind == "commit":
        if not ref:
            raise invalid_input("commit ids look like 'commit:owner/repo@sha'")
        data = await repos.get_commit(github, repo, ref)
        files_changed = "\n".join(
            f"{f['status']}: {f['filename']} (+{f.get('additions', 0)}/-{f.get('deletions', 0)})"
            for f in data.get("files", [])
        )
        text, cut = cut_text(f"{data['commit']['message']}\n\n{files_changed}", FETCH_TEXT_BYTES)
        return Document(
            id=id,
            title=data["commit"]["message"].split("\n", 1)[0][:200],
            text=text,
            url=data.get("html_url", ""),
            metadata={
                "sha": data["sha"],
                "truncated": cut,
                "author": (data.get("author") or {}).get("login"),
            },
        )
    if kind == "repo":
        data = await repos.get_repo(github, repo)
        text = (
            f"{data['full_name']}: {data.get('description') or ''}\n"
            f"default branch: {data['default_branch']}"
        )
        return Document(
            id=id,
            title=data["full_name"],
            text=text,
            url=data["html_url"],
            metadata={"private": data["private"], "default_branch": data["default_branch"]},
        )
    raise GitHubMCPError(ErrorCode.INVALID_INPUT, "unknown id kind")
