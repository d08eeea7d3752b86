"""Notifications over the REST API, as compact typed records: the inbox, one thread with
its subscription, marking read or done, and thread and repository subscriptions."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text
from github_mcp.services.shared.repo_facts import repo_path

HTML_KIND = {"issues": "issues", "pulls": "pull", "releases": "releases"}


class Notification(BaseModel):
    id: str
    repository: str
    type: str  # Issue, PullRequest, Release, Discussion, CheckSuite, ...
    title: str
    number: int | None = None
    reason: str  # review_requested, mention, assign, subscribed, ...
    unread: bool
    updated_at: str
    url: str | None = None  # the subject's page


class NotificationPage(BaseModel):
    notifications: list[Notification]
    next_cursor: str | None = None


class NotificationDetail(Notification):
    last_read_at: str | None = None
    subscription: Literal["watching", "ignored"] | None = None  # None: the repository's


class Subscription(BaseModel):
    repository: str | None = None
    thread_id: str | None = None
    subscription: Literal["watching", "ignored", "not_watching"]


class Done(BaseModel):
    thread_id: str | None = None
    repository: str | None = None
    state: str


def _subject_page(repo_html: str, api_url: str | None) -> tuple[int | None, str | None]:
    """The subject's number and web page from its API URL (…/issues/7, …/pulls/7)."""
    parts = (api_url or "").rstrip("/").split("/")
    if len(parts) >= 2 and parts[-1].isdigit() and parts[-2] in HTML_KIND:
        return int(parts[-1]), f"{repo_html}/{HTML_KIND[parts[-2]]}/{parts[-1]}"
    return None, repo_html or None


def notification(item: dict[str, Any]) -> Notification:
    repo = item.get("repository") or {}
    subject = item.get("subject") or {}
    number, url = _subject_page(repo.get("html_url") or "", subject.get("url"))
    return Notification(
        id=str(item["id"]),
        repository=repo.get("full_name") or "",
        type=subject.get("type") or "",
        title=cut_text(strip_invisible(subject.get("title") or ""), 300)[0],
        number=number,
        reason=item.get("reason") or "",
        unread=bool(item.get("unread")),
        updated_at=item.get("updated_at") or "",
        url=url,
    )


async def list_notifications(
    github: GitHubClient,
    *,
    full_name: str | None,
    params: dict[str, Any],
    limit: int,
    cursor: str | None,
) -> NotificationPage:
    path = f"{repo_path(full_name)}/notifications" if full_name else "/notifications"
    page = await github.paginate(path, params=params, limit=limit, cursor=cursor)
    items = [notification(i) for i in page.items]
    return NotificationPage(notifications=items, next_cursor=page.next_cursor)


def _thread_path(thread_id: str) -> str:
    return f"/notifications/threads/{encode_path(thread_id)}"


async def get_thread(github: GitHubClient, thread_id: str) -> Notification:
    return notification(await github.request_json("GET", _thread_path(thread_id)))


async def thread_detail(github: GitHubClient, thread_id: str) -> NotificationDetail:
    item = await github.request_json("GET", _thread_path(thread_id))
    try:
        sub = await github.request_json("GET", _thread_path(thread_id) + "/subscription")
    except GitHubMCPError as missing:
        if missing.code.value != "not_found":
            raise
        sub = None  # no subscription of its own: the repository's watching applies
    state = None if sub is None else ("ignored" if sub.get("ignored") else "watching")
    return NotificationDetail(
        **notification(item).model_dump(), last_read_at=item.get("last_read_at"), subscription=state
    )


async def dismiss(github: GitHubClient, thread_id: str, state: str) -> Done:
    method = "DELETE" if state == "done" else "PATCH"
    await github.request_json(method, _thread_path(thread_id))
    return Done(thread_id=thread_id, state=state)


class MarkedRead(BaseModel):
    repository: str | None = None
    state: Literal["read"] = "read"
    marked: int | None = None  # threads that were unread and are read now
    still_unread: int | None = None  # unread threads left (newer than last_read_at)
    in_background: bool = False  # GitHub's 202: it marks them after answering
    hint: str | None = None


UNREAD_PAGE = 50  # GitHub's largest page of notifications


async def _unread(github: GitHubClient, path: str) -> tuple[set[str], bool]:
    """The first page of unread threads' ids, and whether there are more."""
    page = await github.paginate(path, params={"all": False}, limit=UNREAD_PAGE)
    return {str(item["id"]) for item in page.items}, page.next_cursor is not None


async def mark_all_read(
    github: GitHubClient, full_name: str | None, last_read_at: str | None
) -> MarkedRead:
    path = f"{repo_path(full_name)}/notifications" if full_name else "/notifications"
    before, more_before = await _unread(github, path)
    body: dict[str, Any] = {"read": True}
    if last_read_at:
        body["last_read_at"] = last_read_at
    answer = await github.request_json("PUT", path, json_body=body)
    if isinstance(answer, dict):  # 202: too many for one request
        return MarkedRead(
            repository=full_name,
            in_background=True,
            hint="GitHub is marking them read in the background; list_notifications shows "
            "what is still unread.",
        )
    after, more_after = await _unread(github, path)
    left = len(after) if not more_after else None
    hint = None
    if after:
        cutoff = f"after {last_read_at}" if last_read_at else "since this call began"
        hint = (
            f"{'Some' if left is None else left} notification(s) updated {cutoff} stay "
            "unread; list_notifications shows them."
        )
    return MarkedRead(
        repository=full_name,
        marked=None if more_before else len(before - after),
        still_unread=left,
        hint=hint,
    )


async def set_thread_subscription(
    github: GitHubClient, thread_id: str, action: str
) -> Subscription:
    path = _thread_path(thread_id) + "/subscription"
    if action == "delete":
        await github.request_json("DELETE", path)
        return Subscription(thread_id=thread_id, subscription="not_watching")
    sub = await github.request_json("PUT", path, json_body={"ignored": action == "ignore"})
    state = "ignored" if sub.get("ignored") else "watching"
    return Subscription(thread_id=thread_id, subscription=state)


async def set_repo_subscription(github: GitHubClient, full_name: str, action: str) -> Subscription:
    path = f"{repo_path(full_name)}/subscription"
    if action == "delete":
        await github.request_json("DELETE", path)
        return Subscription(repository=full_name, subscription="not_watching")
    body = {"subscribed": action == "watch", "ignored": action == "ignore"}
    sub = await github.request_json("PUT", path, json_body=body)
    state = "ignored" if sub.get("ignored") else "watching"
    return Subscription(repository=full_name, subscription=state)
