"""Unresolved review threads of a PR (GraphQL `reviewThreads`), and its conversation
comments, each with what to do next: reply, or resolve the thread."""

from __future__ import annotations

import asyncio
from typing import Any, Literal

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.github.graphql import review_threads
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.issues.issue_views import AUTHOR_ASSOCIATION, WITHHELD
from github_mcp.services.pulls._automation import is_bot, pr_label
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.shared.authorship import authored
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.github_json import IssueComment
from github_mcp.services.shared.paging import cursor_for_offset
from github_mcp.services.shared.repo_facts import repo_path
from github_mcp.services.shared.suggested_calls import call_text

BODY_BYTES = 300
REPLY_BYTES = 200
Sort = Literal["file", "newest", "oldest"]


class Reply(BaseModel):
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    body: str


class Thread(BaseModel):
    thread_id: str
    path: str | None = None
    line: int | None = None
    outdated: bool | None = None
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    body: str
    replies: int | None = None
    last_reply: Reply | None = None
    awaiting: Literal["author", "reviewer"]
    reply: str
    resolve: str


class ConversationComment(BaseModel):
    id: int
    author: str | None = None
    author_association: str | None = AUTHOR_ASSOCIATION
    withheld: bool | None = WITHHELD
    created_at: str | None = None
    body: str


class CommentCounts(BaseModel):
    threads: int
    unresolved: int
    resolved: int
    outdated: int | None = None
    issue_comments: int
    bots_hidden: int | None = None


class UnresolvedComments(BaseModel):
    pr: int
    head: str
    head_sha: str
    threads: list[Thread]
    issue_comments: list[ConversationComment]
    counts: CommentCounts
    review_decision: str | None = None
    partial: bool | None = None
    next_cursor: str | None = None
    next: str | None = None


def _text(body: str | None, cap: int) -> str:
    text, cut = cut_text(strip_invisible(body or "").strip(), cap)
    return text + "…" if cut else text


# A thread with the times of its first and last comment, which the sort orders read.
Dated = tuple[str, str, Thread]


def _thread_item(node: dict[str, Any], pr_author: str | None, label: str, lockdown: bool) -> Dated:
    comments = (node.get("comments") or {}).get("nodes") or []
    first = comments[0] if comments else {}
    last = comments[-1] if comments else {}
    first_who, last_who = authored(first, lockdown), authored(last, lockdown)
    last_author = last_who.login
    total = (node.get("comments") or {}).get("totalCount", len(comments))
    thread = Thread(
        thread_id=node["id"],
        path=node.get("path"),
        line=node.get("line") or node.get("originalLine"),
        outdated=True if node.get("isOutdated") else None,
        author=first_who.login,
        **first_who.fields(),
        body=_text(first_who.text(first.get("body") or ""), BODY_BYTES),
        replies=max(0, total - 1) or None,
        last_reply=Reply(
            author=last_author,
            **last_who.fields(),
            body=_text(last_who.text(last.get("body") or ""), REPLY_BYTES),
        )
        if len(comments) > 1
        else None,
        awaiting="reviewer" if last_author and last_author == pr_author else "author",
        reply=call_text("reply_to_review_thread", pr=label, thread_id=node["id"], body="…"),
        resolve=call_text("resolve_review_thread", pr=label, thread_id=node["id"]),
    )
    return first.get("createdAt") or "", last.get("createdAt") or "", thread


def _order(items: list[Dated], sort: Sort) -> list[Thread]:
    if sort == "newest":
        items = sorted(items, key=lambda i: i[1], reverse=True)
    elif sort == "oldest":
        items = sorted(items, key=lambda i: i[0])
    else:
        items = sorted(items, key=lambda i: (i[2].path or "", i[2].line or 0))
    return [thread for _, _, thread in items]


def _conversation(
    comments: list[IssueComment], pr_author: str | None, include_bots: bool, lockdown: bool
) -> tuple[list[ConversationComment], int]:
    """Others' conversation comments, and how many bot comments were hidden."""
    hidden = 0
    shown = []
    for comment in comments:
        user = comment.get("user")
        login = user["login"] if user else None
        if login == pr_author:
            continue
        if not include_bots and is_bot(login, user.get("type") if user else None):
            hidden += 1
            continue
        who = authored(comment, lockdown)
        shown.append(
            ConversationComment(
                id=comment["id"],
                author=login,
                **who.fields(),
                created_at=comment.get("created_at"),
                body=_text(who.text(comment.get("body") or ""), BODY_BYTES),
            )
        )
    return shown, hidden


async def unresolved_comments(
    github: GitHubClient,
    full_name: str,
    number: int,
    *,
    include_bots: bool = False,
    sort: Sort = "file",
    offset: int = 0,
    limit: int = 20,
    lockdown: bool = False,
) -> UnresolvedComments:
    """A page of unresolved threads and of conversation comments (from others than the PR's
    author), with counts; `next_cursor` when either list goes on. Each item carries its
    author's association; with `lockdown`, text by authors without push access is withheld."""
    pr, (nodes, decision, partial), comments = await asyncio.gather(
        get_pull(github, full_name, number),
        review_threads(github, full_name, number),
        github.collect(f"{repo_path(full_name)}/issues/{number}/comments", max_items=500),
    )
    author = (pr.get("user") or {}).get("login")
    label = pr_label(full_name, number)
    open_threads = [n for n in nodes if not n.get("isResolved")]
    hidden = 0
    dated = []
    for node in open_threads:
        first = (((node.get("comments") or {}).get("nodes") or [{}])[0] or {}).get("author") or {}
        if not include_bots and is_bot(first.get("login"), first.get("__typename")):
            hidden += 1
            continue
        dated.append(_thread_item(node, author, label, lockdown))
    threads = _order(dated, sort)
    conversation, bots = _conversation(comments, author, include_bots, lockdown)
    conversation.sort(key=lambda c: c.created_at or "", reverse=sort == "newest")
    end = offset + limit
    more = end < len(threads) or end < len(conversation)
    shown = conversation[offset:end]
    return UnresolvedComments(
        pr=number,
        # where a fix is pushed, and the commit the threads were read against
        head=pr["head"]["ref"],
        head_sha=pr["head"]["sha"],
        threads=threads[offset:end],
        issue_comments=shown,
        counts=CommentCounts(
            threads=len(nodes),
            unresolved=len(open_threads),
            resolved=len(nodes) - len(open_threads),
            outdated=sum(1 for n in open_threads if n.get("isOutdated")) or None,
            issue_comments=len(conversation),
            bots_hidden=(hidden + bots) or None,
        ),
        review_decision=decision,
        partial=partial or None,
        next_cursor=cursor_for_offset(end if more else None),
        next="Answer a conversation comment: "
        + call_text("comment_on_pull_request", pr=label, body="…")
        if shown
        else None,
    )
