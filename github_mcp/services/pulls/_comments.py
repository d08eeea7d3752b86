"""Unresolved review threads of a PR (GraphQL `reviewThreads`), and its conversation
comments, each with what to do next: reply, or resolve the thread."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any, Literal

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.github.graphql import (
    review_threads,
)
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.authorship import authored
from github_mcp.services.content import cut_text
from github_mcp.services.pulls._automation import call_text, is_bot, pr_label
from github_mcp.services.pulls._service import get_pull
from github_mcp.services.repos import (
    repo_path,
)

BODY_BYTES = 300
REPLY_BYTES = 200
Sort = Literal["file", "newest", "oldest"]


def _text(body: str | None, cap: int) -> str:
    text, cut = cut_text(strip_invisible(body or "").strip(), cap)
    return text + "…" if cut else text


@dataclass
class Threads:
    items: list[dict[str, Any]]
    total: int
    unresolved: int
    resolved: int
    bots_hidden: int
    partial: bool


def _thread_item(
    node: dict[str, Any], pr_author: str | None, label: str, lockdown: bool
) -> dict[str, Any]:
    comments = (node.get("comments") or {}).get("nodes") or []
    first = comments[0] if comments else {}
    last = comments[-1] if comments else {}
    first_who, last_who = authored(first, lockdown), authored(last, lockdown)
    first_author, last_author = first_who.login, last_who.login
    total = (node.get("comments") or {}).get("totalCount", len(comments))
    item: dict[str, Any] = {
        "thread_id": node["id"],
        "path": node.get("path"),
        "line": node.get("line") or node.get("originalLine"),
        "outdated": True if node.get("isOutdated") else None,
        "author": first_author,
        **first_who.fields(),
        "body": _text(first_who.text(first.get("body") or ""), BODY_BYTES),
        "replies": max(0, total - 1) or None,
        "awaiting": "reviewer" if last_author and last_author == pr_author else "author",
        "reply": call_text("reply_to_review_thread", pr=label, thread_id=node["id"], body="…"),
        "resolve": call_text("resolve_review_thread", pr=label, thread_id=node["id"]),
        "_first": first.get("createdAt") or "",
        "_last": last.get("createdAt") or "",
    }
    if len(comments) > 1:
        item["last_reply"] = {
            "author": last_author,
            **last_who.fields(),
            "body": _text(last_who.text(last.get("body") or ""), REPLY_BYTES),
        }
    return item


def _order(items: list[dict[str, Any]], sort: Sort) -> list[dict[str, Any]]:
    if sort == "newest":
        return sorted(items, key=lambda i: i["_last"], reverse=True)
    if sort == "oldest":
        return sorted(items, key=lambda i: i["_first"])
    return sorted(items, key=lambda i: (i.get("path") or "", i.get("line") or 0))


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
) -> dict[str, Any]:
    """A page of unresolved threads and of conversation comments (from others than the PR's
    author), with counts; `next_offset` when either list goes on. Each item carries its
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
    threads = []
    for node in open_threads:
        first = (((node.get("comments") or {}).get("nodes") or [{}])[0] or {}).get("author") or {}
        if not include_bots and is_bot(first.get("login"), first.get("__typename")):
            hidden += 1
            continue
        threads.append(_thread_item(node, author, label, lockdown))
    threads = _order(threads, sort)

    conversation = []
    for comment in comments:
        user = comment.get("user") or {}
        login = user.get("login")
        if login == author:
            continue
        if not include_bots and is_bot(login, user.get("type")):
            hidden += 1
            continue
        who = authored(comment, lockdown)
        conversation.append(
            {
                "id": comment["id"],
                "author": login,
                **who.fields(),
                "created_at": comment.get("created_at"),
                "body": _text(who.text(comment.get("body") or ""), BODY_BYTES),
            }
        )
    conversation.sort(key=lambda c: c.get("created_at") or "", reverse=sort == "newest")

    end = offset + limit
    more = end < len(threads) or end < len(conversation)
    for item in threads:
        item.pop("_first"), item.pop("_last")
    return {
        # where a fix is pushed, and the commit the threads were read against
        "head": pr["head"]["ref"],
        "head_sha": pr["head"]["sha"],
        "threads": threads[offset:end],
        "issue_comments": conversation[offset:end],
        "counts": {
            "threads": len(nodes),
            "unresolved": len(open_threads),
            "resolved": len(nodes) - len(open_threads),
            "outdated": sum(1 for n in open_threads if n.get("isOutdated")) or None,
            "issue_comments": len(conversation),
            "bots_hidden": hidden or None,
        },
        "review_decision": decision,
        "partial": partial or None,
        "next_offset": end if more else None,
    }
