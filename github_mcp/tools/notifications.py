"""Notifications: what needs your attention. List the inbox, read one thread with its
subscription, mark read or done (one thread, a repository's or all), and watch or ignore
a thread or a repository.

These writes change only your own inbox and publish nothing, yet they are writes all the
same: each goes through the write gate as an unscoped write (one approval window covers a
triage session), and a thread's repository must be in the allow-list, which also hides
the threads of other repositories from the list.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from github_mcp.kernel.effects import Target
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import ArgumentsOnly, Call, tool
from github_mcp.services import notifications as service
from github_mcp.services.notifications import (
    Done,
    MarkedRead,
    NotificationDetail,
    NotificationPage,
    Subscription,
)

TOOLSET = "notifications"
ThreadId = Annotated[str, Field(pattern=r"^[0-9]{1,20}$", description="Notification id.")]
Timestamp = Annotated[
    str,
    Field(pattern=r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$", description="YYYY-MM-DDTHH:MM:SSZ"),
]


async def _thread_repo(call: Call, kwargs: dict[str, Any]) -> Target:
    """The thread's repository, which the pipeline checks against the allow-list."""
    thread = await service.get_thread(call.rt.github, kwargs["thread_id"])
    return Target(None, repo=thread.repository)


@tool(toolset=TOOLSET)
async def list_notifications(
    call: Call,
    full_name: FullName | None = None,
    include_read: bool = False,
    participating: bool = False,
    since: Timestamp | None = None,
    before: Timestamp | None = None,
    limit: Limit = 30,
    cursor: Cursor | None = None,
) -> NotificationPage:
    """Your notifications, newest first: unread unless include_read; participating keeps
    those you take part in or were asked into (review requests, mentions, assignments)."""
    params: dict[str, Any] = {"all": include_read, "participating": participating}
    params |= {k: v for k, v in (("since", since), ("before", before)) if v}
    page = await service.list_notifications(
        call.rt.github, full_name=full_name, params=params, limit=limit, cursor=cursor
    )
    kept = [n for n in page.notifications if call.rt.gate.repo_allowed(n.repository)]
    return page.model_copy(update={"notifications": kept})


@tool(toolset=TOOLSET, repo_arg=None)
async def get_notification_details(call: Call, thread_id: ThreadId) -> NotificationDetail:
    """One notification with when you last read it and its thread subscription."""
    detail = await service.thread_detail(call.rt.github, thread_id)
    call.rt.gate.check_repo_allowed(detail.repository)
    return detail


@tool(
    toolset=TOOLSET,
    write=True,
    target=_thread_repo,
    repo_arg=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it marks one named thread read or done in the user's own inbox; nothing is published"
    ),
)
async def dismiss_notification(
    call: Call, thread_id: ThreadId, state: Literal["read", "done"] = "read"
) -> Done:
    """Mark a notification read, or done (it leaves the inbox)."""
    return await service.dismiss(call.rt.github, thread_id, state)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it marks read what the inbox holds up to last_read_at (or the call); nothing is published"
    ),
)
async def mark_all_notifications_read(
    call: Call, full_name: FullName | None = None, last_read_at: Timestamp | None = None
) -> MarkedRead:
    """Mark every notification read (or one repository's), up to last_read_at if given;
    says how many were marked and stay unread."""
    if full_name is None and call.rt.gate.settings.allowlist:
        raise invalid_input(
            "The allow-list limits this server to some repositories.",
            hint="Name a repository (full_name) to mark its notifications read.",
        )
    return await service.mark_all_read(call.rt.github, full_name, last_read_at)


@tool(
    toolset=TOOLSET,
    write=True,
    target=_thread_repo,
    repo_arg=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it sets the user's own subscription to one named thread; nothing is published"
    ),
)
async def manage_notification_subscription(
    call: Call, thread_id: ThreadId, action: Literal["watch", "ignore", "delete"]
) -> Subscription:
    """Watch or ignore one notification thread, or delete its own subscription."""
    return await service.set_thread_subscription(call.rt.github, thread_id, action)


@tool(
    toolset=TOOLSET,
    write=True,
    target=None,
    idempotent=True,
    binds=ArgumentsOnly(
        "it sets the user's own subscription to the named repository; nothing is published"
    ),
)
async def manage_repository_notification_subscription(
    call: Call, full_name: FullName, action: Literal["watch", "ignore", "delete"]
) -> Subscription:
    """Watch or ignore a repository's notifications, or stop watching (delete)."""
    return await service.set_repo_subscription(call.rt.github, full_name, action)
