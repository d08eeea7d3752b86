"""Discussions over GraphQL, as compact typed records: a repository's discussions (by
category), one discussion with its answer, its comments with their replies, its
categories, and adding a comment or a reply."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, not_found
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text

BODY_CAP = 8_000
COMMENT_CAP = 4_000
REPLIES = 10  # replies shown per comment; the comment's url shows the rest

CATEGORIES_QUERY = """query($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    discussionCategories(first: 50) { nodes { id name slug emoji description isAnswerable } }
  } }"""

LIST_QUERY = """query($owner: String!, $name: String!, $first: Int!, $after: String,
    $categoryId: ID) {
  repository(owner: $owner, name: $name) {
    discussions(first: $first, after: $after, categoryId: $categoryId,
        orderBy: {field: UPDATED_AT, direction: DESC}) {
      nodes { number title closed isAnswered updatedAt url author { login }
        category { slug } comments(first: 0) { totalCount } }
      pageInfo { hasNextPage endCursor } } } }"""

GET_QUERY = """query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    discussion(number: $number) {
      id number title body closed isAnswered createdAt updatedAt url author { login }
      category { name slug isAnswerable }
      answer { id databaseId author { login } body url }
      comments(first: 0) { totalCount } } } }"""

COMMENTS_QUERY = """query($owner: String!, $name: String!, $number: Int!, $first: Int!,
    $after: String) {
  repository(owner: $owner, name: $name) {
    discussion(number: $number) {
      comments(first: $first, after: $after) {
        nodes { id author { login } body createdAt isAnswer url
          replies(first: 10) { totalCount nodes { id author { login } body createdAt url } } }
        pageInfo { hasNextPage endCursor } } } } }"""

ADD_COMMENT = """mutation($id: ID!, $body: String!, $replyTo: ID) {
  addDiscussionComment(input: {discussionId: $id, body: $body, replyToId: $replyTo}) {
    comment { id databaseId url createdAt } } }"""


class Category(BaseModel):
    id: str
    name: str
    slug: str
    emoji: str | None = None
    description: str | None = None
    answerable: bool


class Categories(BaseModel):
    categories: list[Category]


class DiscussionSummary(BaseModel):
    number: int
    title: str
    category: str
    author: str | None = None
    closed: bool
    answered: bool | None = None
    comments: int
    updated_at: str
    url: str


class DiscussionPage(BaseModel):
    repository: str | None = Field(
        None, description="Where an organisation keeps its discussions (its .github)."
    )
    discussions: list[DiscussionSummary]
    next_cursor: str | None = None


# GitHub keeps an organisation's discussions in one of its repositories, `.github` unless the
# organisation chose another; its discussions are the organisation's.
ORG_DISCUSSIONS_REPO = ".github"


async def list_org_discussions(
    github: GitHubClient, owner: str, category: str | None, limit: int, cursor: str | None
) -> DiscussionPage:
    full_name = f"{owner}/{ORG_DISCUSSIONS_REPO}"
    try:
        page = await list_discussions(github, full_name, category, limit, cursor)
    except GitHubMCPError as missing:
        if missing.code != ErrorCode.NOT_FOUND or category:
            raise
        raise not_found(
            f"{owner} has no {ORG_DISCUSSIONS_REPO} repository, where GitHub keeps an "
            "organisation's discussions.",
            hint="Name the repository that holds them (full_name).",
        ) from None
    return page.model_copy(update={"repository": full_name})


class Comment(BaseModel):
    id: str
    author: str | None = None
    body: str
    created_at: str | None = None
    is_answer: bool | None = None
    url: str
    replies: list[Comment] | None = None
    more_replies: int | None = None


class Discussion(BaseModel):
    number: int
    title: str
    body: str
    category: str
    author: str | None = None
    closed: bool
    answered: bool | None = None
    answer: Comment | None = None
    comments: int
    created_at: str
    url: str


class CommentPage(BaseModel):
    comments: list[Comment]
    next_cursor: str | None = None


class AddedComment(BaseModel):
    id: str
    url: str


def _clean(text: str | None, cap: int) -> str:
    return cut_text(strip_invisible(text or ""), cap)[0]


def _login(node: dict[str, Any]) -> str | None:
    return (node.get("author") or {}).get("login")


def _owner_name(full_name: str) -> dict[str, str]:
    owner, name = full_name.split("/", 1)
    return {"owner": owner, "name": name}


async def categories(github: GitHubClient, full_name: str) -> Categories:
    data = await github.graphql(CATEGORIES_QUERY, _owner_name(full_name))
    nodes = data["repository"]["discussionCategories"]["nodes"]
    return Categories(
        categories=[
            Category(
                id=n["id"],
                name=n["name"],
                slug=n["slug"],
                emoji=n.get("emoji"),
                description=_clean(n.get("description"), 300) or None,
                answerable=bool(n.get("isAnswerable")),
            )
            for n in nodes
        ]
    )


async def _category_id(github: GitHubClient, full_name: str, category: str) -> str:
    wanted = category.strip().lower()
    for found in (await categories(github, full_name)).categories:
        if wanted in (found.slug.lower(), found.name.lower()):
            return found.id
    raise not_found(
        f"No discussion category {category!r} in {full_name}.",
        hint="list_discussion_categories names them.",
    )


async def list_discussions(
    github: GitHubClient, full_name: str, category: str | None, limit: int, cursor: str | None
) -> DiscussionPage:
    variables: dict[str, Any] = _owner_name(full_name) | {"first": limit, "after": cursor}
    if category:
        variables["categoryId"] = await _category_id(github, full_name, category)
    data = await github.graphql(LIST_QUERY, variables)
    found = data["repository"]["discussions"]
    items = [
        DiscussionSummary(
            number=n["number"],
            title=_clean(n["title"], 300),
            category=n["category"]["slug"],
            author=_login(n),
            closed=n["closed"],
            answered=n.get("isAnswered"),
            comments=n["comments"]["totalCount"],
            updated_at=n["updatedAt"],
            url=n["url"],
        )
        for n in found["nodes"]
    ]
    info = found["pageInfo"]
    return DiscussionPage(
        discussions=items, next_cursor=info["endCursor"] if info["hasNextPage"] else None
    )


def _comment(node: dict[str, Any], cap: int = COMMENT_CAP) -> Comment:
    return Comment(
        id=node["id"],
        author=_login(node),
        body=_clean(node.get("body"), cap),
        created_at=node.get("createdAt"),
        is_answer=node.get("isAnswer") or None,
        url=node["url"],
    )


async def get_discussion(github: GitHubClient, full_name: str, number: int) -> Discussion:
    data = await github.graphql(GET_QUERY, _owner_name(full_name) | {"number": number})
    found = data["repository"]["discussion"]
    answer = found.get("answer")
    return Discussion(
        number=found["number"],
        title=_clean(found["title"], 300),
        body=_clean(found["body"], BODY_CAP),
        category=found["category"]["slug"],
        author=_login(found),
        closed=found["closed"],
        answered=found.get("isAnswered"),
        answer=_comment(answer) if answer else None,
        comments=found["comments"]["totalCount"],
        created_at=found["createdAt"],
        url=found["url"],
    )


async def discussion_id(github: GitHubClient, full_name: str, number: int) -> str:
    data = await github.graphql(GET_QUERY, _owner_name(full_name) | {"number": number})
    return str(data["repository"]["discussion"]["id"])


async def comments(
    github: GitHubClient, full_name: str, number: int, limit: int, cursor: str | None
) -> CommentPage:
    variables = _owner_name(full_name) | {"number": number, "first": limit, "after": cursor}
    data = await github.graphql(COMMENTS_QUERY, variables)
    found = data["repository"]["discussion"]["comments"]
    items = []
    for node in found["nodes"]:
        comment = _comment(node)
        replies = node["replies"]
        comment.replies = [_comment(r) for r in replies["nodes"]] or None
        hidden = replies["totalCount"] - len(replies["nodes"])
        comment.more_replies = hidden or None
        items.append(comment)
    info = found["pageInfo"]
    return CommentPage(
        comments=items, next_cursor=info["endCursor"] if info["hasNextPage"] else None
    )


async def add_comment(
    github: GitHubClient, full_name: str, number: int, body: str, reply_to: str | None
) -> AddedComment:
    target = await discussion_id(github, full_name, number)
    variables = {"id": target, "body": body, "replyTo": reply_to}
    data = await github.graphql(ADD_COMMENT, variables)
    comment = data["addDiscussionComment"]["comment"]
    return AddedComment(id=comment["id"], url=comment["url"])
