"""POST /graphql (and /api/graphql): a faithful subset of GitHub's GraphQL schema.

Served by graphql-core. Covers what the controller uses: a pull request's review threads
with their comments, resolving and unresolving threads, replying to one, and
`createCommitOnBranch`. Type, field and argument names and types match GitHub's public
schema (tests/forge_collab checks them against @octokit/graphql-schema). Errors come back
as GitHub sends them: status 200, `{"data": …, "errors": [{"type", "path", "locations",
"message"}]}`.
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass
from typing import Any

from graphql import (
    GraphQLError,
    GraphQLSchema,
    OperationType,
    build_schema,
    execute_sync,
    get_operation_ast,
    parse,
    validate,
)
from starlette.responses import Response
from starlette.routing import Route

from .api import Ctx, Urls, endpoint
from .auth import Principal, can_read, can_write
from .collab_store import (
    Issue,
    ReviewComment,
    Thread,
    collab,
    node_id,
    parse_node_id,
    repo_by_id,
)
from .errors import ApiError, json_response
from .gitstore import FORGE_SIGNATURE, GitError, Signature, TreeChange
from .pulls_git import live_base, live_head, web_flow_signature
from .routes_protection import protection_for
from .routes_pulls import merge_state
from .routes_reviews import reply, review_summary, set_resolved, thread_outdated
from .shapes import iso
from .shapes import node_id as legacy_node_id
from .state import ForgeState, RefUpdate, RepoRecord, UserRecord

AUTH_DOCS = (
    "https://docs.github.com/graphql/guides/forming-calls-with-graphql#authenticating-with-graphql"
)
MAX_PAGE = 100

SDL = """
scalar Base64String
scalar DateTime
scalar GitObjectID
scalar URI

interface Node {
  id: ID!
}

interface Actor {
  avatarUrl(size: Int): URI!
  login: String!
  resourcePath: URI!
  url: URI!
}

interface GitObject {
  abbreviatedOid: String!
  commitUrl: URI!
  id: ID!
  oid: GitObjectID!
}

enum DiffSide {
  LEFT
  RIGHT
}

enum MergeableState {
  CONFLICTING
  MERGEABLE
  UNKNOWN
}

enum MergeStateStatus {
  BEHIND
  BLOCKED
  CLEAN
  DIRTY
  DRAFT
  HAS_HOOKS
  UNKNOWN
  UNSTABLE
}

enum PullRequestReviewDecision {
  APPROVED
  CHANGES_REQUESTED
  REVIEW_REQUIRED
}

enum PullRequestState {
  CLOSED
  MERGED
  OPEN
}

enum PullRequestReviewState {
  APPROVED
  CHANGES_REQUESTED
  COMMENTED
  DISMISSED
  PENDING
}

enum PullRequestReviewThreadSubjectType {
  FILE
  LINE
}

type PageInfo {
  endCursor: String
  hasNextPage: Boolean!
  hasPreviousPage: Boolean!
  startCursor: String
}

type User implements Actor & Node {
  avatarUrl(size: Int): URI!
  id: ID!
  login: String!
  name: String
  resourcePath: URI!
  url: URI!
}

type Bot implements Actor & Node {
  avatarUrl(size: Int): URI!
  id: ID!
  login: String!
  resourcePath: URI!
  url: URI!
}

type Commit implements GitObject & Node {
  abbreviatedOid: String!
  commitUrl: URI!
  committedDate: DateTime!
  id: ID!
  message: String!
  messageBody: String!
  messageHeadline: String!
  oid: GitObjectID!
  url: URI!
}

type Ref implements Node {
  id: ID!
  name: String!
  prefix: String!
  target: GitObject
}

type Repository implements Node {
  defaultBranchRef: Ref
  id: ID!
  name: String!
  nameWithOwner: String!
  pullRequest(number: Int!): PullRequest
  ref(qualifiedName: String!): Ref
  url: URI!
}

type PullRequest implements Node {
  author: Actor
  baseRefName: String!
  baseRefOid: GitObjectID!
  body: String!
  headRefName: String!
  headRefOid: GitObjectID!
  id: ID!
  isDraft: Boolean!
  mergeStateStatus: MergeStateStatus!
  mergeable: MergeableState!
  number: Int!
  reviewDecision: PullRequestReviewDecision
  reviewThreads(
    after: String
    before: String
    first: Int
    last: Int
  ): PullRequestReviewThreadConnection!
  state: PullRequestState!
  title: String!
  url: URI!
}

type PullRequestReview implements Node {
  author: Actor
  body: String!
  databaseId: Int
  id: ID!
  state: PullRequestReviewState!
}

type PullRequestReviewThreadConnection {
  edges: [PullRequestReviewThreadEdge]
  nodes: [PullRequestReviewThread]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewThreadEdge {
  cursor: String!
  node: PullRequestReviewThread
}

type PullRequestReviewThread implements Node {
  comments(
    after: String
    before: String
    first: Int
    last: Int
    skip: Int
  ): PullRequestReviewCommentConnection!
  diffSide: DiffSide!
  id: ID!
  isCollapsed: Boolean!
  isOutdated: Boolean!
  isResolved: Boolean!
  line: Int
  originalLine: Int
  path: String!
  pullRequest: PullRequest!
  resolvedBy: User
  startDiffSide: DiffSide
  startLine: Int
  subjectType: PullRequestReviewThreadSubjectType!
  viewerCanReply: Boolean!
  viewerCanResolve: Boolean!
  viewerCanUnresolve: Boolean!
}

type PullRequestReviewCommentConnection {
  edges: [PullRequestReviewCommentEdge]
  nodes: [PullRequestReviewComment]
  pageInfo: PageInfo!
  totalCount: Int!
}

type PullRequestReviewCommentEdge {
  cursor: String!
  node: PullRequestReviewComment
}

type PullRequestReviewComment implements Node {
  author: Actor
  body: String!
  createdAt: DateTime!
  databaseId: Int
  diffHunk: String!
  id: ID!
  line: Int
  originalLine: Int
  outdated: Boolean!
  path: String!
  pullRequest: PullRequest!
  pullRequestReview: PullRequestReview
  replyTo: PullRequestReviewComment
  startLine: Int
  updatedAt: DateTime!
  url: URI!
}

type Query {
  node(id: ID!): Node
  repository(followRenames: Boolean, name: String!, owner: String!): Repository
  viewer: User!
}

input ResolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type ResolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input UnresolveReviewThreadInput {
  clientMutationId: String
  threadId: ID!
}

type UnresolveReviewThreadPayload {
  clientMutationId: String
  thread: PullRequestReviewThread
}

input AddPullRequestReviewThreadReplyInput {
  body: String!
  clientMutationId: String
  pullRequestReviewId: ID
  pullRequestReviewThreadId: ID!
}

type AddPullRequestReviewThreadReplyPayload {
  clientMutationId: String
  comment: PullRequestReviewComment
}

input CommittableBranch {
  branchName: String
  id: ID
  repositoryNameWithOwner: String
}

input CommitMessage {
  body: String
  headline: String!
}

input FileAddition {
  contents: Base64String!
  path: String!
}

input FileDeletion {
  path: String!
}

input FileChanges {
  additions: [FileAddition!] = []
  deletions: [FileDeletion!] = []
}

input CreateCommitOnBranchInput {
  branch: CommittableBranch!
  clientMutationId: String
  expectedHeadOid: GitObjectID!
  fileChanges: FileChanges
  message: CommitMessage!
}

type CreateCommitOnBranchPayload {
  clientMutationId: String
  commit: Commit
  ref: Ref
}

type Mutation {
  addPullRequestReviewThreadReply(
    input: AddPullRequestReviewThreadReplyInput!
  ): AddPullRequestReviewThreadReplyPayload
  createCommitOnBranch(input: CreateCommitOnBranchInput!): CreateCommitOnBranchPayload
  resolveReviewThread(input: ResolveReviewThreadInput!): ResolveReviewThreadPayload
  unresolveReviewThread(input: UnresolveReviewThreadInput!): UnresolveReviewThreadPayload
}
"""


class GQLFailure(Exception):
    """An error GitHub reports with a `type` (NOT_FOUND, FORBIDDEN, STALE_DATA…)."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


@dataclass
class Context:
    state: ForgeState
    principal: Principal
    urls: Urls

    def readable(self, repo: RepoRecord | None) -> bool:
        return repo is not None and can_read(self.principal, repo)

    def require_write(self, repo: RepoRecord, mutation: str) -> None:
        if not can_write(self.principal, repo):
            login = self.principal.login or "anonymous"
            if self.principal.token is not None and self.principal.token.access == "read":
                raise GQLFailure("FORBIDDEN", self.principal.forbidden_message)
            raise GQLFailure(
                "FORBIDDEN",
                f"{login} does not have the correct permissions to execute `{mutation}`",
            )


# --- cursors and connections -----------------------------------------------------------------


def _cursor(index: int) -> str:
    return base64.b64encode(f"cursor:v2:{index}".encode()).decode()


def _index(cursor: str | None) -> int | None:
    if cursor is None:
        return None
    try:
        return int(base64.b64decode(cursor).decode().rsplit(":", 1)[1])
    except (binascii.Error, UnicodeDecodeError, ValueError, IndexError):
        raise GQLFailure(
            "INVALID_CURSOR_ARGUMENTS", f"`{cursor}` does not appear to be a valid cursor."
        ) from None


def connection(
    items: list[Any],
    name: str,
    first: int | None,
    last: int | None,
    after: str | None,
    before: str | None,
    skip: int | None = None,
) -> dict[str, Any]:
    if first is None and last is None:
        raise GQLFailure(
            "MISSING_PAGINATION_BOUNDARIES",
            "You must provide a `first` or `last` value to properly paginate the "
            f"`{name}` connection.",
        )
    for value, arg in ((first, "first"), (last, "last")):
        if value is not None and value > MAX_PAGE:
            raise GQLFailure(
                "EXCESSIVE_PAGINATION",
                f"Requesting {value} records on the `{name}` connection exceeds the `{arg}` "
                f"limit of {MAX_PAGE} records.",
            )
        if value is not None and value < 0:
            raise GQLFailure(
                "INVALID_PAGINATION",
                f"`{arg}` on the `{name}` connection cannot be less than zero.",
            )
    indexed = list(enumerate(items))
    start_after, end_before = _index(after), _index(before)
    if start_after is not None:
        indexed = [(i, x) for i, x in indexed if i > start_after]
    if end_before is not None:
        indexed = [(i, x) for i, x in indexed if i < end_before]
    if skip:
        indexed = indexed[skip:]
    window = indexed
    if first is not None:
        window = window[:first]
    if last is not None:
        window = window[-last:] if last else []
    first_index = window[0][0] if window else None
    last_index = window[-1][0] if window else None
    return {
        "edges": [{"cursor": _cursor(i), "node": x} for i, x in window],
        "nodes": [x for _, x in window],
        "totalCount": len(items),
        "pageInfo": {
            "startCursor": _cursor(first_index) if first_index is not None else None,
            "endCursor": _cursor(last_index) if last_index is not None else None,
            "hasNextPage": bool(indexed) and last_index is not None and last_index < indexed[-1][0],
            "hasPreviousPage": bool(indexed)
            and first_index is not None
            and first_index > indexed[0][0],
        },
    }


# --- views ------------------------------------------------------------------------------------


class UserView:
    def __init__(self, ctx: Context, user: UserRecord):
        self.ctx, self.user = ctx, user
        self.typename = "Bot" if user.type == "Bot" else "User"
        self.login = user.login
        self.name = user.name
        self.id = legacy_node_id(user.type, user.id)
        self.url = f"{ctx.urls.web}/{user.login}"
        self.resourcePath = f"/{user.login}"

    def avatarUrl(self, info: Any, size: int | None = None) -> str:
        suffix = f"&s={size}" if size else ""
        return f"{self.ctx.urls.web}/avatars/u/{self.user.id}?v=4{suffix}"


def actor(ctx: Context, login: str | None) -> UserView | None:
    return UserView(ctx, ctx.state.ensure_user(login)) if login else None


class CommitView:
    typename = "Commit"

    def __init__(self, ctx: Context, repo: RepoRecord, sha: str):
        info = repo.git.read_commit(sha)
        headline, _, rest = info.message.rstrip("\n").partition("\n")
        self.oid = sha
        self.abbreviatedOid = sha[:7]
        self.id = base64.b64encode(f"06:Commit{repo.id}:{sha}".encode()).decode()
        self.url = self.commitUrl = f"{ctx.urls.repo_html(repo.full_name)}/commit/{sha}"
        self.message = info.message.rstrip("\n")
        self.messageHeadline = headline
        self.messageBody = rest.strip("\n")
        self.committedDate = iso(info.committer.timestamp)


def ref_id(repo: RepoRecord, qualified: str) -> str:
    return "REF_" + base64.urlsafe_b64encode(f"{repo.id}:{qualified}".encode()).decode().rstrip("=")


def parse_ref_id(value: str) -> tuple[int, str] | None:
    if not value.startswith("REF_"):
        return None
    raw = value[4:]
    try:
        repo_id, _, qualified = (
            base64.urlsafe_b64decode(raw + "=" * (-len(raw) % 4)).decode().partition(":")
        )
        return int(repo_id), qualified
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


class RefView:
    def __init__(self, ctx: Context, repo: RepoRecord, qualified: str, sha: str):
        self.id = ref_id(repo, qualified)
        self.prefix = next(
            (p for p in ("refs/heads/", "refs/tags/") if qualified.startswith(p)), "refs/"
        )
        self.name = qualified[len(self.prefix) :]
        self.target = CommitView(ctx, repo, sha)


class RepositoryView:
    def __init__(self, ctx: Context, repo: RepoRecord):
        self.ctx, self.repo = ctx, repo
        self.id = legacy_node_id("Repository", repo.id)
        self.name = repo.name
        self.nameWithOwner = repo.full_name
        self.url = ctx.urls.repo_html(repo.full_name)

    def pullRequest(self, info: Any, number: int) -> PullRequestView:
        issue = collab(self.repo).issues.get(number)
        if issue is None or issue.pull is None:
            raise GQLFailure(
                "NOT_FOUND", f"Could not resolve to a PullRequest with the number of {number}."
            )
        return PullRequestView(self.ctx, self.repo, issue)

    def ref(self, info: Any, qualifiedName: str) -> RefView | None:
        qualified = (
            qualifiedName if qualifiedName.startswith("refs/") else f"refs/heads/{qualifiedName}"
        )
        sha = self.repo.git.read_ref(qualified)
        return RefView(self.ctx, self.repo, qualified, sha) if sha else None

    def defaultBranchRef(self, info: Any) -> RefView | None:
        return self.ref(info, f"refs/heads/{self.repo.default_branch}")


class PullRequestView:
    typename = "PullRequest"

    def __init__(self, ctx: Context, repo: RepoRecord, issue: Issue):
        pull = issue.pull
        assert pull is not None
        self.ctx, self.repo, self.issue = ctx, repo, issue
        self.id = node_id("PR", repo, issue.id)
        self.number = issue.number
        self.title = issue.title
        self.body = issue.body or ""
        self.url = f"{ctx.urls.repo_html(repo.full_name)}/pull/{issue.number}"
        self.state = "MERGED" if pull.merged else issue.state.upper()
        self.isDraft = pull.draft
        self.headRefName, self.baseRefName = pull.head_ref, pull.base_ref
        self.headRefOid = live_head(repo, issue)
        self.baseRefOid = live_base(repo, issue)
        known = pull.known_for == [self.headRefOid, self.baseRefOid]
        self.mergeable = (
            "UNKNOWN"
            if not known or pull.mergeable is None
            else "MERGEABLE"
            if pull.mergeable
            else "CONFLICTING"
        )
        self.author = actor(ctx, issue.user)
        self.mergeStateStatus = (
            merge_state(repo, issue, self.headRefOid, self.baseRefOid).upper()
            if self.mergeable != "UNKNOWN" and issue.state == "open"
            else "UNKNOWN"
        )
        self.reviewDecision = review_decision(repo, issue)

    def reviewThreads(
        self,
        info: Any,
        first: int | None = None,
        last: int | None = None,
        after: str | None = None,
        before: str | None = None,
    ) -> dict[str, Any]:
        threads = sorted(
            (t for t in collab(self.repo).threads.values() if t.number == self.issue.number),
            key=lambda t: t.id,
        )
        views = [ThreadView(self.ctx, self.repo, t, self.headRefOid) for t in threads]
        return connection(views, "reviewThreads", first, last, after, before)


def review_decision(repo: RepoRecord, issue: Issue) -> str | None:
    pull = issue.pull
    assert pull is not None
    prot = protection_for(repo, pull.base_ref)
    needed = prot.required_approving_review_count if prot else None
    approvals, changes = review_summary(repo, issue)
    if changes:
        return "CHANGES_REQUESTED"
    if needed:
        return "APPROVED" if approvals >= needed else "REVIEW_REQUIRED"
    return "APPROVED" if approvals else None


class ReviewView:
    typename = "PullRequestReview"

    def __init__(self, ctx: Context, repo: RepoRecord, review_id: int):
        review = collab(repo).reviews[review_id]
        self.id = node_id("PRR", repo, review.id)
        self.databaseId = review.id
        self.state = review.state
        self.body = review.body
        self.author = actor(ctx, review.user)


class CommentView:
    typename = "PullRequestReviewComment"

    def __init__(self, ctx: Context, repo: RepoRecord, comment: ReviewComment, outdated: bool):
        self.ctx, self.repo, self.comment = ctx, repo, comment
        self.id = node_id("PRRC", repo, comment.id)
        self.databaseId = comment.id
        self.body = comment.body
        self.author = actor(ctx, comment.user)
        self.createdAt = iso(comment.created_at)
        self.updatedAt = iso(comment.updated_at)
        self.url = (
            f"{ctx.urls.repo_html(repo.full_name)}/pull/{comment.number}#discussion_r{comment.id}"
        )
        self.path = comment.path
        self.outdated = outdated
        self.line = None if outdated else comment.line
        self.originalLine = comment.original_line
        self.startLine = None if outdated else comment.start_line
        self.diffHunk = comment.diff_hunk

    def replyTo(self, info: Any) -> CommentView | None:
        parent = collab(self.repo).review_comments.get(self.comment.in_reply_to_id or -1)
        return CommentView(self.ctx, self.repo, parent, self.outdated) if parent else None

    def pullRequestReview(self, info: Any) -> ReviewView | None:
        if self.comment.review_id not in collab(self.repo).reviews:
            return None
        return ReviewView(self.ctx, self.repo, self.comment.review_id)  # type: ignore[arg-type]

    def pullRequest(self, info: Any) -> PullRequestView:
        return PullRequestView(self.ctx, self.repo, collab(self.repo).issues[self.comment.number])


class ThreadView:
    typename = "PullRequestReviewThread"

    def __init__(self, ctx: Context, repo: RepoRecord, thread: Thread, head: str | None = None):
        self.ctx, self.repo, self.thread = ctx, repo, thread
        issue = collab(repo).issues[thread.number]
        head = head or live_head(repo, issue)
        writer = can_write(ctx.principal, repo)
        self.id = node_id("PRRT", repo, thread.id)
        self.isResolved = self.isCollapsed = thread.resolved
        self.isOutdated = thread_outdated(repo, thread, head)
        self.path = thread.path
        self.line = None if self.isOutdated else thread.line
        self.originalLine = thread.line
        self.startLine = None if self.isOutdated else thread.start_line
        self.diffSide = thread.side
        self.startDiffSide = thread.start_side
        self.subjectType = "LINE" if thread.line is not None else "FILE"
        self.resolvedBy = actor(ctx, thread.resolved_by)
        self.viewerCanReply = writer
        self.viewerCanResolve = writer and not thread.resolved
        self.viewerCanUnresolve = writer and thread.resolved

    def comments(
        self,
        info: Any,
        first: int | None = None,
        last: int | None = None,
        after: str | None = None,
        before: str | None = None,
        skip: int | None = None,
    ) -> dict[str, Any]:
        data = collab(self.repo)
        views = [
            CommentView(self.ctx, self.repo, data.review_comments[i], self.isOutdated)
            for i in self.thread.comment_ids
            if i in data.review_comments
        ]
        return connection(views, "comments", first, last, after, before, skip)

    def pullRequest(self, info: Any) -> PullRequestView:
        return PullRequestView(self.ctx, self.repo, collab(self.repo).issues[self.thread.number])


# --- lookups ----------------------------------------------------------------------------------


def _node(ctx: Context, value: str) -> tuple[str, RepoRecord, int]:
    parsed = parse_node_id(value)
    repo = repo_by_id(ctx.state, parsed[1]) if parsed else None
    if parsed is None or not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    assert repo is not None
    return parsed[0], repo, parsed[2]


def _thread(ctx: Context, value: str) -> tuple[RepoRecord, Thread]:
    prefix, repo, ident = _node(ctx, value)
    thread = collab(repo).threads.get(ident) if prefix == "PRRT" else None
    if thread is None:
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a node with the global id of '{value}'"
        )
    return repo, thread


def resolve_node(root: Any, info: Any, id: str) -> Any:
    ctx: Context = info.context
    prefix, repo, ident = _node(ctx, id)
    data = collab(repo)
    if prefix == "PRRT" and ident in data.threads:
        return ThreadView(ctx, repo, data.threads[ident])
    if prefix == "PRRC" and ident in data.review_comments:
        comment = data.review_comments[ident]
        thread = data.threads[comment.thread_id]
        outdated = thread_outdated(repo, thread, live_head(repo, data.issues[comment.number]))
        return CommentView(ctx, repo, comment, outdated)
    if prefix == "PR":
        issue = next((i for i in data.issues.values() if i.id == ident and i.pull), None)
        if issue is not None:
            return PullRequestView(ctx, repo, issue)
    raise GQLFailure("NOT_FOUND", f"Could not resolve to a node with the global id of '{id}'")


def resolve_repository(
    root: Any, info: Any, owner: str, name: str, followRenames: bool = True
) -> Any:
    ctx: Context = info.context
    repo = ctx.state.repo(owner, name)
    if not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{owner}/{name}'."
        )
    assert repo is not None
    return RepositoryView(ctx, repo)


def resolve_viewer(root: Any, info: Any) -> UserView:
    ctx: Context = info.context
    if ctx.principal.login is None:
        raise GQLFailure("FORBIDDEN", "Resource not accessible by integration")
    return UserView(ctx, ctx.state.ensure_user(ctx.principal.login))


# --- mutations --------------------------------------------------------------------------------


def _set_thread(info: Any, input: dict[str, Any], resolved: bool, mutation: str) -> dict[str, Any]:
    ctx: Context = info.context
    repo, thread = _thread(ctx, input["threadId"])
    ctx.require_write(repo, mutation)
    set_resolved(ctx.state, thread, resolved, ctx.principal.login)
    return {
        "clientMutationId": input.get("clientMutationId"),
        "thread": ThreadView(ctx, repo, thread),
    }


def resolve_thread(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_thread(info, input, True, "ResolveReviewThread")


def unresolve_thread(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    return _set_thread(info, input, False, "UnresolveReviewThread")


def add_thread_reply(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    repo, thread = _thread(ctx, input["pullRequestReviewThreadId"])
    ctx.require_write(repo, "AddPullRequestReviewThreadReply")
    if not input["body"].strip():
        raise GQLFailure("UNPROCESSABLE", "Body can't be blank")
    data = collab(repo)
    issue = data.issues[thread.number]
    with ctx.state.lock:
        comment = reply(
            ctx.state,
            repo,
            issue,
            ctx.principal.login or "",
            input["body"],
            data.review_comments[thread.comment_ids[0]],
        )
    outdated = thread_outdated(repo, thread, live_head(repo, issue))
    return {
        "clientMutationId": input.get("clientMutationId"),
        "comment": CommentView(ctx, repo, comment, outdated),
    }


def _branch_target(ctx: Context, branch: dict[str, Any]) -> tuple[RepoRecord, str]:
    if branch.get("id"):
        parsed = parse_ref_id(branch["id"])
        repo = repo_by_id(ctx.state, parsed[0]) if parsed else None
        if parsed is None or not ctx.readable(repo):
            raise GQLFailure(
                "NOT_FOUND", f"Could not resolve to a node with the global id of '{branch['id']}'"
            )
        assert repo is not None
        return repo, parsed[1]
    name_with_owner, name = branch.get("repositoryNameWithOwner"), branch.get("branchName")
    if not name_with_owner or not name:
        raise GQLFailure(
            "UNPROCESSABLE",
            "Either the branch id or both repositoryNameWithOwner and branchName are required",
        )
    owner, _, repo_name = name_with_owner.partition("/")
    repo = ctx.state.repo(owner, repo_name)
    if not ctx.readable(repo):
        raise GQLFailure(
            "NOT_FOUND", f"Could not resolve to a Repository with the name '{name_with_owner}'."
        )
    assert repo is not None
    qualified = name if name.startswith("refs/") else f"refs/heads/{name}"
    return repo, qualified


def create_commit_on_branch(root: Any, info: Any, input: dict[str, Any]) -> dict[str, Any]:
    ctx: Context = info.context
    repo, qualified = _branch_target(ctx, input["branch"])
    ctx.require_write(repo, "CreateCommitOnBranch")
    git = repo.git
    head = git.read_ref(qualified)
    if head is None:
        raise GQLFailure("NOT_FOUND", f"Could not resolve to a Ref with the name '{qualified}'.")
    expected = input["expectedHeadOid"]
    if expected != head:
        raise GQLFailure(
            "STALE_DATA",
            f'Expected branch to point to "{expected}" but it did not. Pull and try again.',
        )
    changes: list[TreeChange] = []
    files = input.get("fileChanges") or {}
    for deletion in files.get("deletions") or []:
        path = deletion["path"].strip("/")
        if git.entry_at(head, path) is None:
            raise GQLFailure(
                "UNPROCESSABLE",
                f"A path was requested for deletion which does not exist as of commit oid `{head}`",
            )
        changes.append(TreeChange(path, sha=None))
    for addition in files.get("additions") or []:
        path = addition["path"].strip("/")
        try:
            content = base64.b64decode(addition["contents"], validate=True)
        except (binascii.Error, ValueError):
            raise GQLFailure(
                "UNPROCESSABLE", f"The contents of {path} are not valid base64"
            ) from None
        current = git.entry_at(head, path)
        mode = current.mode if current is not None and current.type == "blob" else "100644"
        changes.append(TreeChange(path, mode, git.write_blob(content)))
    message = input["message"]
    text = message["headline"].strip()
    if not text:
        raise GQLFailure("UNPROCESSABLE", "A commit message headline is required")
    if message.get("body"):
        text += "\n\n" + message["body"].strip("\n")
    user = ctx.state.ensure_user(ctx.principal.login or "")
    committer = web_flow_signature()
    author = Signature(
        user.name or user.login,
        user.email or f"{user.login}@users.noreply.sandbox",
        committer.timestamp,
    )
    try:
        tree = git.build_tree(git.read_commit(head).tree, changes)
    except GitError as exc:
        raise GQLFailure(
            "UNPROCESSABLE", f"The file changes could not be applied: {exc.stderr.strip()}"
        ) from None
    sha = git.create_commit(tree, [head], text + "\n", author, committer, FORGE_SIGNATURE)
    if not git.update_ref(qualified, sha, head):
        raise GQLFailure(
            "STALE_DATA",
            f'Expected branch to point to "{expected}" but it did not. Pull and try again.',
        )
    ctx.state.fire_ref_update(RefUpdate(repo.full_name, qualified, head, sha, "api"))
    return {
        "clientMutationId": input.get("clientMutationId"),
        "commit": CommitView(ctx, repo, sha),
        "ref": RefView(ctx, repo, qualified, sha),
    }


# --- schema and endpoint ----------------------------------------------------------------------


def build() -> GraphQLSchema:
    schema = build_schema(SDL)
    query, mutation = schema.query_type, schema.mutation_type
    assert query is not None and mutation is not None
    query.fields["repository"].resolve = resolve_repository
    query.fields["viewer"].resolve = resolve_viewer
    query.fields["node"].resolve = resolve_node
    mutation.fields["resolveReviewThread"].resolve = resolve_thread
    mutation.fields["unresolveReviewThread"].resolve = unresolve_thread
    mutation.fields["addPullRequestReviewThreadReply"].resolve = add_thread_reply
    mutation.fields["createCommitOnBranch"].resolve = create_commit_on_branch
    for name in ("Node", "Actor", "GitObject"):
        schema.type_map[name].resolve_type = lambda value, _info, _type: value.typename  # type: ignore[attr-defined]
    return schema


SCHEMA = build()


def _error_json(error: GraphQLError) -> dict[str, Any]:
    data: dict[str, Any] = {}
    original = error.original_error
    if isinstance(original, GQLFailure):
        data["type"] = original.kind
    if error.path is not None:
        data["path"] = list(error.path)
    if error.locations:
        data["locations"] = [{"line": loc.line, "column": loc.column} for loc in error.locations]
    data["message"] = error.message
    return data


def run_query(
    state: ForgeState, principal: Principal, urls: Urls, payload: dict[str, Any]
) -> dict[str, Any]:
    query = payload.get("query")
    if not isinstance(query, str) or not query.strip():
        return {
            "errors": [{"message": "A query attribute must be specified and must be a string."}]
        }
    variables = payload.get("variables") or {}
    if isinstance(variables, str):
        try:
            variables = json.loads(variables) if variables.strip() else {}
        except ValueError:
            variables = None
    if not isinstance(variables, dict):
        return {"errors": [{"message": "Variables are invalid JSON."}]}
    try:
        document = parse(query)
    except GraphQLError as error:
        return {"errors": [_error_json(error)]}
    problems = validate(SCHEMA, document)
    if problems:
        return {"errors": [_error_json(e) for e in problems]}
    operation = get_operation_ast(document, payload.get("operationName"))
    if operation is not None and operation.operation == OperationType.SUBSCRIPTION:
        return {"errors": [{"message": "Subscriptions are not supported"}]}
    result = execute_sync(
        SCHEMA,
        document,
        variable_values=variables,
        operation_name=payload.get("operationName"),
        context_value=Context(state, principal, urls),
    )
    body: dict[str, Any] = {}
    if result.data is not None or not result.errors:
        body["data"] = result.data
    if result.errors:
        body["errors"] = [_error_json(e) for e in result.errors]
    return body


@endpoint
def graphql_endpoint(ctx: Ctx) -> Response:
    if ctx.principal.anonymous:
        raise ApiError(
            401, "This endpoint requires you to be authenticated.", documentation_url=AUTH_DOCS
        )
    try:
        payload = json.loads(ctx.body) if ctx.body.strip() else {}
    except (ValueError, UnicodeDecodeError):
        raise ApiError(400, "Problems parsing JSON") from None
    if not isinstance(payload, dict):
        raise ApiError(400, "Problems parsing JSON")
    return json_response(run_query(ctx.state, ctx.principal, ctx.urls, payload))


def routes(state: ForgeState) -> list[Route]:
    # GitHub Enterprise serves GraphQL at /api/graphql, beside the REST API's /api/v3.
    return [
        Route("/graphql", graphql_endpoint, methods=["POST"]),
        Route("/api/graphql", graphql_endpoint, methods=["POST"]),
    ]
