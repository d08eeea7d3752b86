"""GraphQL object views: users and bots, commits, refs, repositories, pull requests,
reviews, review threads and their comments. Plain attributes are fields; methods taking
`info` resolve fields with arguments or lazily."""

from __future__ import annotations

import base64
import binascii
from typing import Any

from sandbox_forge.graphql.context import Context, GQLFailure, connection
from sandbox_forge.graphql.git_objects import git_object
from sandbox_forge.kernel.formats import iso
from sandbox_forge.kernel.formats import node_id as legacy_node_id
from sandbox_forge.rest.auth import can_write
from sandbox_forge.rules.mergeability import merge_state
from sandbox_forge.rules.protection import protection_for
from sandbox_forge.stores.collab import Issue, ReviewComment, Thread, collab
from sandbox_forge.stores.lookups import author_association, node_id
from sandbox_forge.stores.pull_heads import branch_tips, live_base, live_head
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.reviews import review_summary, thread_outdated


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
        self.ctx, self.repo, self.sha = ctx, repo, sha

    def target(self, info: Any) -> Any:
        # A lightweight tag or branch names a commit; an annotated tag names a Tag object.
        return git_object(self.ctx, self.repo, self.sha)


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
        tips = branch_tips(repo)  # one reading of the branches for every field of the view
        self.headRefOid = live_head(repo, issue, tips)
        self.baseRefOid = live_base(repo, issue, tips)
        known = pull.known_for == [self.headRefOid, self.baseRefOid]
        self.mergeable = (
            "UNKNOWN"
            if not known or pull.mergeable is None
            else "MERGEABLE"
            if pull.mergeable
            else "CONFLICTING"
        )
        self.author = actor(ctx, issue.user)
        self.authorAssociation = author_association(ctx.state, repo, issue.user)
        self.mergeStateStatus = (
            merge_state(repo, issue, self.headRefOid, self.baseRefOid).upper()
            if self.mergeable != "UNKNOWN" and issue.state == "open"
            else "UNKNOWN"
        )
        self.reviewDecision = review_decision(repo, issue)
        self.createdAt = iso(issue.created_at)
        self.mergedAt = iso(pull.merged_at) if pull.merged_at else None

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
        self.submittedAt = iso(review.submitted_at) if review.submitted_at else None
        self.body = review.body
        self.author = actor(ctx, review.user)
        self.authorAssociation = author_association(ctx.state, repo, review.user)


class CommentView:
    typename = "PullRequestReviewComment"

    def __init__(self, ctx: Context, repo: RepoRecord, comment: ReviewComment, outdated: bool):
        self.ctx, self.repo, self.comment = ctx, repo, comment
        self.id = node_id("PRRC", repo, comment.id)
        self.databaseId = comment.id
        self.body = comment.body
        self.author = actor(ctx, comment.user)
        self.authorAssociation = author_association(ctx.state, repo, comment.user)
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
