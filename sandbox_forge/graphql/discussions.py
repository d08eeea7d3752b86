"""Discussions in the GraphQL schema, by GitHub's names and types: a repository's
discussions (by category, answered, state, ordered), one by number, its comments with
their replies, its categories, and addDiscussionComment. The SDL here extends the
Repository and Mutation types of sdl.py; `attach` wires the resolvers into the schema."""

from __future__ import annotations

from typing import Any

from graphql import GraphQLObjectType, GraphQLSchema

from sandbox_forge.graphql.context import Context, GQLFailure, connection
from sandbox_forge.graphql.views import RepositoryView, actor
from sandbox_forge.kernel.formats import iso
from sandbox_forge.stores import discussions as store
from sandbox_forge.stores.lookups import node_id, parse_node_id, repo_by_id
from sandbox_forge.stores.records import RepoRecord

DISCUSSION_SDL = """
type DiscussionCategory implements Node {
  description: String
  emoji: String!
  id: ID!
  isAnswerable: Boolean!
  name: String!
  slug: String!
}

type DiscussionCategoryConnection {
  nodes: [DiscussionCategory]
  pageInfo: PageInfo!
  totalCount: Int!
}

type DiscussionComment implements Node {
  author: Actor
  body: String!
  createdAt: DateTime!
  databaseId: Int
  id: ID!
  isAnswer: Boolean!
  replies(after: String, before: String, first: Int, last: Int): DiscussionCommentConnection!
  replyTo: DiscussionComment
  url: URI!
}

type DiscussionCommentConnection {
  nodes: [DiscussionComment]
  pageInfo: PageInfo!
  totalCount: Int!
}

type Discussion implements Node {
  answer: DiscussionComment
  author: Actor
  body: String!
  category: DiscussionCategory!
  closed: Boolean!
  comments(after: String, before: String, first: Int, last: Int): DiscussionCommentConnection!
  createdAt: DateTime!
  id: ID!
  isAnswered: Boolean
  number: Int!
  title: String!
  updatedAt: DateTime!
  url: URI!
}

type DiscussionConnection {
  nodes: [Discussion]
  pageInfo: PageInfo!
  totalCount: Int!
}

enum DiscussionOrderField {
  CREATED_AT
  UPDATED_AT
}

enum OrderDirection {
  ASC
  DESC
}

input DiscussionOrder {
  direction: OrderDirection!
  field: DiscussionOrderField!
}

enum DiscussionState {
  CLOSED
  OPEN
}

extend type Repository {
  discussion(number: Int!): Discussion
  discussionCategories(
    after: String
    before: String
    filterByAssignable: Boolean = false
    first: Int
    last: Int
  ): DiscussionCategoryConnection!
  discussions(
    after: String
    answered: Boolean = null
    before: String
    categoryId: ID = null
    first: Int
    last: Int
    orderBy: DiscussionOrder = {field: UPDATED_AT, direction: DESC}
    states: [DiscussionState!] = []
  ): DiscussionConnection!
  hasDiscussionsEnabled: Boolean!
}

input AddDiscussionCommentInput {
  body: String!
  clientMutationId: String
  discussionId: ID!
  replyToId: ID
}

type AddDiscussionCommentPayload {
  clientMutationId: String
  comment: DiscussionComment
}

extend type Mutation {
  addDiscussionComment(input: AddDiscussionCommentInput!): AddDiscussionCommentPayload
}
"""


class CategoryView:
    typename = "DiscussionCategory"

    def __init__(self, repo: RepoRecord, category: store.Category):
        self.id = node_id("DIC", repo, category.id)
        self.name, self.slug, self.emoji = category.name, category.slug, category.emoji
        self.description = category.description
        self.isAnswerable = category.answerable


class CommentView:
    typename = "DiscussionComment"

    def __init__(self, ctx: Context, repo: RepoRecord, comment: store.Comment):
        self.ctx, self.repo, self.comment = ctx, repo, comment
        discussion = store.of(repo).discussions[comment.discussion]
        self.id = node_id("DC", repo, comment.id)
        self.databaseId = comment.id
        self.body = comment.body
        self.createdAt = iso(comment.created_at)
        self.isAnswer = discussion.answer == comment.id
        self.url = f"{_url(ctx, repo, discussion)}#discussioncomment-{comment.id}"

    def author(self, info: Any) -> Any:
        return actor(self.ctx, self.comment.author)

    def replyTo(self, info: Any) -> CommentView | None:
        parent = store.of(self.repo).comments.get(self.comment.reply_to or 0)
        return CommentView(self.ctx, self.repo, parent) if parent else None

    def replies(self, info: Any, **page: Any) -> dict[str, Any]:
        found = [
            CommentView(self.ctx, self.repo, c) for c in store.replies(self.repo, self.comment.id)
        ]
        return connection(found, "replies", **_page(page))


def _url(ctx: Context, repo: RepoRecord, discussion: store.Discussion) -> str:
    return f"{ctx.urls.repo_html(repo.full_name)}/discussions/{discussion.number}"


def _page(args: dict[str, Any]) -> dict[str, Any]:
    keys = ("first", "last", "after", "before")
    return {k: args.get(k) for k in keys}


class DiscussionView:
    typename = "Discussion"

    def __init__(self, ctx: Context, repo: RepoRecord, discussion: store.Discussion):
        self.ctx, self.repo, self.discussion = ctx, repo, discussion
        self.id = node_id("D", repo, discussion.id)
        self.number, self.title, self.body = discussion.number, discussion.title, discussion.body
        self.closed = discussion.closed
        self.createdAt, self.updatedAt = iso(discussion.created_at), iso(discussion.updated_at)
        self.url = _url(ctx, repo, discussion)
        answerable = store.of(repo).categories[discussion.category].answerable
        self.isAnswered = (discussion.answer is not None) if answerable else None

    def author(self, info: Any) -> Any:
        return actor(self.ctx, self.discussion.author)

    def category(self, info: Any) -> CategoryView:
        return CategoryView(self.repo, store.of(self.repo).categories[self.discussion.category])

    def answer(self, info: Any) -> CommentView | None:
        found = store.of(self.repo).comments.get(self.discussion.answer or 0)
        return CommentView(self.ctx, self.repo, found) if found else None

    def comments(self, info: Any, **page: Any) -> dict[str, Any]:
        top = store.top_level(self.repo, self.discussion.number)
        found = [CommentView(self.ctx, self.repo, c) for c in top]
        return connection(found, "comments", **_page(page))


def _category_id(repo: RepoRecord, value: str | None) -> int | None:
    if value is None:
        return None
    parsed = parse_node_id(value)
    if parsed is None or parsed[0] != "DIC" or parsed[1] != repo.id:
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    return parsed[2]


def repository_discussions(root: RepositoryView, info: Any, **args: Any) -> dict[str, Any]:
    repo = root.repo
    category = _category_id(repo, args.get("categoryId"))
    states = set(args.get("states") or [])
    found = []
    for item in store.of(repo).discussions.values():
        if category is not None and item.category != category:
            continue
        if states and ("CLOSED" if item.closed else "OPEN") not in states:
            continue
        if args.get("answered") is not None and (item.answer is not None) != args["answered"]:
            continue
        found.append(item)
    order = args.get("orderBy") or {}
    key = "created_at" if order.get("field") == "CREATED_AT" else "updated_at"
    found.sort(key=lambda d: (getattr(d, key), d.number), reverse=order.get("direction") != "ASC")
    views = [DiscussionView(root.ctx, repo, d) for d in found]
    return connection(views, "discussions", **_page(args))


def repository_discussion(root: RepositoryView, info: Any, number: int) -> DiscussionView:
    found = store.of(root.repo).discussions.get(number)
    if found is None:
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a Discussion with the number of {number}."
        )
    return DiscussionView(root.ctx, root.repo, found)


def repository_categories(root: RepositoryView, info: Any, **args: Any) -> dict[str, Any]:
    categories = sorted(store.of(root.repo).categories.values(), key=lambda c: c.id)
    views = [CategoryView(root.repo, c) for c in categories]
    return connection(views, "discussionCategories", **_page(args))


def _find(ctx: Context, value: str, prefix: str) -> tuple[RepoRecord, int]:
    parsed = parse_node_id(value)
    repo = repo_by_id(ctx.state, parsed[1]) if parsed and parsed[0] == prefix else None
    if parsed is None or repo is None or not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    return repo, parsed[2]


def add_discussion_comment(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    repo, ident = _find(ctx, input["discussionId"], "D")
    discussion = next((d for d in store.of(repo).discussions.values() if d.id == ident), None)
    if discussion is None or not ctx.principal.login:
        raise GQLFailure(
            "NOT_FOUND",
            f"Could not resolve to a node with the global id of '{input['discussionId']}'",
        )
    parent = None
    if input.get("replyToId"):
        parent_repo, parent_id = _find(ctx, input["replyToId"], "DC")
        parent = store.of(repo).comments.get(parent_id) if parent_repo is repo else None
        if parent is None or parent.discussion != discussion.number:
            raise GQLFailure(
                "NOT_FOUND",
                f"Could not resolve to a node with the global id of '{input['replyToId']}'",
            )
        if parent.reply_to is not None:
            raise GQLFailure(
                "UNPROCESSABLE", "Parent comment is already in a thread, cannot reply to it."
            )
    if not input["body"].strip():
        raise GQLFailure("UNPROCESSABLE", "Body can't be blank")
    comment = store.add_comment(
        ctx.state,
        repo,
        discussion,
        ctx.principal.login,
        input["body"],
        parent.id if parent else None,
    )
    return {
        "clientMutationId": input.get("clientMutationId"),
        "comment": CommentView(ctx, repo, comment),
    }


def attach(schema: GraphQLSchema) -> None:
    repository = schema.type_map["Repository"]
    mutation = schema.mutation_type
    assert isinstance(repository, GraphQLObjectType) and mutation is not None
    repository.fields["discussions"].resolve = repository_discussions
    repository.fields["discussion"].resolve = repository_discussion
    repository.fields["discussionCategories"].resolve = repository_categories
    repository.fields["hasDiscussionsEnabled"].resolve = lambda root, _info: bool(
        store.of(root.repo).categories
    )
    mutation.fields["addDiscussionComment"].resolve = add_discussion_comment
