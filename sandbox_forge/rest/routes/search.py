"""Search: code (git grep on default branches), repositories and commit messages.

`/search/issues` belongs with issues and pull requests: add it in that module, reusing
`parse_query` and `search_response` from here.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import can_read
from sandbox_forge.rest.shapes.git import rest_commit
from sandbox_forge.rest.shapes.users_repos import minimal_repo, repo_json
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

LANGUAGE_EXTENSIONS = {
    "python": ["py", "pyi"],
    "javascript": ["js", "mjs", "cjs", "jsx"],
    "typescript": ["ts", "tsx"],
    "go": ["go"],
    "rust": ["rs"],
    "java": ["java"],
    "ruby": ["rb"],
    "markdown": ["md", "markdown"],
    "shell": ["sh", "bash"],
    "json": ["json"],
    "yaml": ["yml", "yaml"],
    "toml": ["toml"],
    "c": ["c", "h"],
    "c++": ["cpp", "cc", "hpp"],
    "html": ["html", "htm"],
    "css": ["css"],
}
BOOLEAN_WORDS = {"AND", "OR", "NOT"}


@dataclass
class SearchQuery:
    terms: list[str] = field(default_factory=list)
    qualifiers: dict[str, list[str]] = field(default_factory=dict)
    # The terms split at each OR: a text matches when it holds every term of one group.
    any_of: list[list[str]] = field(default_factory=lambda: [[]])

    def all(self, name: str) -> list[str]:
        return self.qualifiers.get(name, [])

    def first(self, name: str) -> str | None:
        values = self.all(name)
        return values[0] if values else None


def parse_query(q: str) -> SearchQuery:
    """Split `q` into plain terms and `key:value` qualifiers, honouring quotes."""
    try:
        tokens = shlex.split(q)
    except ValueError:
        tokens = q.split()
    query = SearchQuery()
    for token in tokens:
        key, colon, value = token.partition(":")
        if colon and key and re.fullmatch(r"[a-z_-]+", key.lower()) and value:
            query.qualifiers.setdefault(key.lower(), []).append(value)
        elif token == "OR":
            query.any_of.append([])
        elif token not in BOOLEAN_WORDS:
            query.terms.append(token)
            query.any_of[-1].append(token)
    return query


def require_q(ctx: Ctx) -> SearchQuery:
    q = ctx.query.get("q", "")
    if not q.strip():
        raise ApiError(
            422,
            "Validation Failed",
            errors=[{"resource": "Search", "field": "q", "code": "missing"}],
        )
    if "\x00" in q:
        # A query GitHub cannot parse is a validation failure, not a server error.
        raise ApiError(
            422,
            "Validation Failed",
            errors=[{"resource": "Search", "field": "q", "code": "invalid"}],
        )
    return parse_query(q)


def search_response(ctx: Ctx, items: list[Any], shape: Callable[[Any], dict[str, Any]]):
    page, per_page = ctx.page()
    window = items[(page - 1) * per_page : page * per_page]
    data = {
        "total_count": len(items),
        "incomplete_results": False,
        "items": [{**shape(i), "score": 1.0} for i in window],
    }
    return ctx.paged_response(data, page, per_page, len(items))


def repos_in_scope(ctx: Ctx, query: SearchQuery) -> list[RepoRecord]:
    names = {n.lower() for n in query.all("repo")}
    owners = {o.lower() for o in query.all("user") + query.all("org")}
    visible = [r for r in ctx.state.all_repos() if can_read(ctx.principal, r)]
    token = ctx.principal.token
    if token is not None and token.repos is not None:
        visible = [r for r in visible if r.full_name.lower() in token.repos or not r.private]
    chosen = [
        r
        for r in visible
        if (not names or r.full_name.lower() in names) and (not owners or r.owner.lower() in owners)
    ]
    return sorted(chosen, key=lambda r: r.full_name.lower())


# --- code ---------------------------------------------------------------------------------


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[\]\\])", r"\\\1", text)


def _pathspecs(query: SearchQuery) -> list[str]:
    """Narrow git grep to the qualified directories; _path_filter has the final say."""
    dirs = [p.strip("/") for p in query.all("path") if p.strip("/")]
    return [f":(glob){_glob_escape(d)}/**" for d in dirs]


def _path_filter(query: SearchQuery) -> Callable[[str], bool]:
    dirs = [p.strip("/") for p in query.all("path") if p.strip("/")]
    exts = {e.lstrip(".").lower() for e in query.all("extension")}
    for language in query.all("language"):
        exts |= set(LANGUAGE_EXTENSIONS.get(language.lower(), [language.lower()]))
    names = set(query.all("filename"))

    def keep(path: str) -> bool:
        if dirs and not any(path == d or path.startswith(d + "/") for d in dirs):
            return False
        base = path.rsplit("/", 1)[-1]
        if exts and base.rsplit(".", 1)[-1].lower() not in exts:
            return False
        return not names or base in names

    return keep


@endpoint
def search_code(ctx: Ctx):
    if ctx.principal.anonymous:
        raise ApiError(401, "Requires authentication")
    query = require_q(ctx)
    if not query.terms:
        raise ApiError(
            422,
            "Validation Failed",
            errors=[
                {
                    "resource": "Search",
                    "field": "q",
                    "code": "invalid",
                    "message": "The search query must include at least one search term.",
                }
            ],
        )
    in_path = "path" in [v.lower() for v in query.all("in")]
    keep = _path_filter(query)
    hits: list[tuple[RepoRecord, str, str]] = []
    for repo in repos_in_scope(ctx, query):
        commit = repo.git.resolve_commit(repo.default_branch)
        if commit is None:
            continue
        if in_path:
            paths = [
                e.path
                for e in repo.git.ls_tree(commit, recursive=True)
                if e.type == "blob" and all(t.lower() in e.path.lower() for t in query.terms)
            ]
        else:
            paths = repo.git.grep_files(commit, query.terms, _pathspecs(query))
        hits += [(repo, commit, p) for p in sorted(paths) if keep(p)]

    def shape(hit: tuple[RepoRecord, str, str]) -> dict[str, Any]:
        repo, commit, path = hit
        entry = repo.git.entry_at(commit, path)
        sha = entry.sha if entry else ""
        api = ctx.urls.repo(repo.full_name)
        return {
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "url": f"{api}/contents/{quote(path)}?ref={commit}",
            "git_url": f"{api}/git/blobs/{sha}",
            "html_url": f"{ctx.urls.repo_html(repo.full_name)}/blob/{commit}/{quote(path)}",
            "repository": minimal_repo(ctx.state, ctx.urls, repo),
        }

    return search_response(ctx, hits, shape)


# --- repositories -------------------------------------------------------------------------


@endpoint
def search_repositories(ctx: Ctx):
    query = require_q(ctx)
    fields = {v.lower() for v in query.all("in")} or {"name", "description"}
    visibility = {v.lower() for v in query.all("is")}

    def matches(repo: RepoRecord) -> bool:
        wanted = visibility & {"public", "private"}
        if wanted and ("private" if repo.private else "public") not in wanted:
            return False
        haystack = " ".join(
            value
            for key, value in (("name", repo.full_name), ("description", repo.description))
            if key in fields
        ).lower()
        return all(term.lower() in haystack for term in query.terms)

    found = [r for r in repos_in_scope(ctx, query) if matches(r)]
    return search_response(ctx, found, lambda r: repo_json(ctx.state, ctx.urls, r, ctx.principal))


# --- commits ------------------------------------------------------------------------------


@endpoint
def search_commits(ctx: Ctx):
    query = require_q(ctx)
    extra = ["-i", "--all-match"]
    extra += [f"--grep={term}" for term in query.terms]
    for login in query.all("author"):
        user = ctx.state.user(login)
        extra.append(f"--author={user.email if user and user.email else login}")
    extra += [f"--author={email}" for email in query.all("author-email")]
    extra += [f"--committer={email}" for email in query.all("committer-email")]
    hashes = [h.lower() for h in query.all("hash")]
    found = []
    for repo in repos_in_scope(ctx, query):
        head = repo.git.resolve_commit(repo.default_branch)
        if head is None:
            continue
        shas = repo.git.rev_list([head], extra=extra)
        infos = repo.git.read_commits(shas)
        found += [
            (repo, info)
            for info in infos
            if not hashes or any(info.sha.startswith(h) for h in hashes)
        ]
    found.sort(key=lambda hit: hit[1].committer.timestamp, reverse=True)

    def shape(hit) -> dict[str, Any]:
        repo, info = hit
        item = rest_commit(ctx.state, ctx.urls, repo, info)
        item["repository"] = minimal_repo(ctx.state, ctx.urls, repo)
        return item

    return search_response(ctx, found, shape)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/search/code", search_code, methods=["GET"]),
        Route("/search/repositories", search_repositories, methods=["GET"]),
        Route("/search/commits", search_commits, methods=["GET"]),
    ]


__all__ = ["SearchQuery", "parse_query", "repos_in_scope", "require_q", "routes", "search_response"]
