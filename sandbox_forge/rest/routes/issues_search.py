"""`GET /search/issues`: GitHub's issue search qualifiers over the collaboration store
(is:/state:/type:, label, no:, author, assignee, head, base, in:, and OR between terms),
served with issues."""

from __future__ import annotations

from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.routes.search import SearchQuery, repos_in_scope, require_q
from sandbox_forge.rest.shapes.issues import comment_count, issue_json
from sandbox_forge.stores.collab import Issue, collab
from sandbox_forge.stores.lookups import page_window
from sandbox_forge.stores.records import RepoRecord


def _is_values(query: SearchQuery) -> set[str]:
    values = {v.lower() for v in query.all("is")}
    values |= {v.lower() for v in query.all("state")}
    values |= {{"pr": "pr", "issue": "issue"}.get(v.lower(), v.lower()) for v in query.all("type")}
    if "pull-request" in values:
        values.add("pr")
    return values


def _matches(repo: RepoRecord, issue: Issue, query: SearchQuery) -> bool:
    return (
        _kind_matches(issue, _is_values(query))
        and _labels_match(issue, query)
        and _people_match(issue, query)
        and _refs_match(issue, query)
        and _text_matches(repo, issue, query)
    )


def _kind_matches(issue: Issue, kinds: set[str]) -> bool:
    """is:/state:/type: — issue or pull request, open or closed, merged, draft."""
    pull = issue.pull
    if ("pr" in kinds and pull is None) or ("issue" in kinds and pull is not None):
        return False
    if any(state in kinds and issue.state != state for state in ("open", "closed")):
        return False
    if "merged" in kinds and not (pull and pull.merged):
        return False
    if "unmerged" in kinds and (pull is None or pull.merged):
        return False
    return not ("draft" in kinds and not (pull and pull.draft))


def _labels_match(issue: Issue, query: SearchQuery) -> bool:
    """label: (commas: any of), -label:, no:label."""
    labels = {name.lower() for name in issue.labels}
    for value in query.all("label"):
        if not labels & {v.strip().lower() for v in value.split(",")}:
            return False
    if any(v.lower() in labels for v in query.all("-label")):
        return False
    return not (labels and "label" in {v.lower() for v in query.all("no")})


def _people_match(issue: Issue, query: SearchQuery) -> bool:
    """author:, assignee:, no:assignee."""
    if issue.assignees and "assignee" in {v.lower() for v in query.all("no")}:
        return False
    if any(issue.user.lower() != v.lower() for v in query.all("author")):
        return False
    assignees = {a.lower() for a in issue.assignees}
    return all(v.lower() in assignees for v in query.all("assignee"))


def _refs_match(issue: Issue, query: SearchQuery) -> bool:
    """head:/base: match pull requests' branches only."""
    pull = issue.pull
    if pull is None:
        return not (query.all("head") or query.all("base"))
    heads_ok = all(pull.head_ref == v for v in query.all("head"))
    return heads_ok and all(pull.base_ref == v for v in query.all("base"))


def _text_matches(repo: RepoRecord, issue: Issue, query: SearchQuery) -> bool:
    """The free terms (OR between groups) in the in: fields: title, body, comments."""
    if not query.terms:
        return True
    where = {v.lower() for v in query.all("in")} or {"title", "body", "comments"}
    parts = []
    if "title" in where:
        parts.append(issue.title)
    if "body" in where:
        parts.append(issue.body or "")
    if "comments" in where:
        parts += [c.body for c in collab(repo).issue_comments.values() if c.number == issue.number]
    haystack = "\n".join(parts).lower()
    groups = [g for g in query.any_of if g]
    return any(all(term.lower() in haystack for term in group) for group in groups)


@endpoint
def search_issues(ctx: Ctx):
    query = require_q(ctx)
    hits: list[tuple[RepoRecord, Issue]] = []
    for repo in repos_in_scope(ctx, query):
        hits += [(repo, i) for i in collab(repo).issues.values() if _matches(repo, i, query)]
    sort = ctx.query.get("sort")
    reverse = ctx.query.get("order", "desc") != "asc"
    if sort == "updated":
        hits.sort(key=lambda h: (h[1].updated_at, h[1].number), reverse=reverse)
    elif sort == "comments":
        hits.sort(key=lambda h: comment_count(h[0], h[1].number), reverse=reverse)
    elif sort == "created":
        hits.sort(key=lambda h: (h[1].created_at, h[1].number), reverse=reverse)
    else:  # best match: newest first, as ties are on GitHub
        hits.sort(key=lambda h: (h[1].created_at, h[1].number), reverse=True)
    page, per_page = ctx.page()
    items = []
    for repo, issue in page_window(hits, page, per_page):
        item = issue_json(ctx.state, ctx.urls, repo, issue)
        if item["body"] is None:
            del item["body"]  # a search hit's body is a string or absent
        items.append({**item, "score": 1.0})
    data = {
        "total_count": len(hits),
        "incomplete_results": False,
        "search_type": "lexical",
        "items": items,
    }
    return ctx.paged_response(data, page, per_page, len(hits))
