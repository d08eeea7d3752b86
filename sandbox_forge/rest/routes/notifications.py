"""Notifications by GitHub's REST description: the user's inbox (all, participating,
since, before; per repository too), a thread, marking read (one, all, a repository's) and
done, a thread's subscription and the user's repository subscriptions. A thread of a
repository the caller can no longer read is not shown. Times are whole seconds, as GitHub
shows them; marking more than `store.AT_ONCE` threads read answers GitHub's 202 (its
background marking) instead of 205. Records: stores/notifications.py."""

from __future__ import annotations

import time
from datetime import datetime
from typing import Any

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.kernel.errors import ApiError, invalid_request, json_response, not_found
from sandbox_forge.kernel.formats import iso
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import check_repo, require_user
from sandbox_forge.rest.shapes.users_repos import minimal_repo
from sandbox_forge.stores import notifications as store
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

SUBJECT_PATHS = {"Issue": "issues", "PullRequest": "pulls", "Release": "releases"}
BACKGROUND = (
    "Unread notifications couldn't be marked in a single request. Notifications are being "
    "marked as read in the background."
)


def _time(ctx: Ctx, name: str) -> float | None:
    return _parse_time(ctx.query.get(name), name)


def _parse_time(raw: str | None, name: str) -> float | None:
    if not raw:
        return None
    try:
        return datetime.fromisoformat(raw.replace("Z", "+00:00")).timestamp()
    except ValueError as exc:
        raise ApiError(422, f"Invalid value for '{name}'") from exc


def _flag(ctx: Ctx, name: str) -> bool:
    return ctx.query.get(name, "false").lower() == "true"


def _readable_repo(ctx: Ctx, full_name: str) -> RepoRecord | None:
    owner, _, name = full_name.partition("/")
    try:
        return check_repo(ctx.principal, ctx.state.repo(owner, name), write=False)
    except ApiError:
        return None


def thread_json(ctx: Ctx, thread: store.Thread, repo: RepoRecord) -> dict[str, Any]:
    api = f"{ctx.urls.api}/notifications/threads/{thread.id}"
    base = ctx.urls.repo(repo.full_name)
    kind = SUBJECT_PATHS.get(thread.subject_type, "issues")
    subject = f"{base}/{kind}/{thread.number}" if thread.number is not None else base
    return {
        "id": thread.id,
        "repository": minimal_repo(ctx.state, ctx.urls, repo),
        "subject": {
            "title": thread.title,
            "url": subject,
            "latest_comment_url": subject,
            "type": thread.subject_type,
        },
        "reason": thread.reason,
        "unread": thread.unread,
        "updated_at": iso(thread.updated_at),
        "last_read_at": iso(thread.last_read_at) if thread.last_read_at else None,
        "url": api,
        "subscription_url": f"{api}/subscription",
    }


def _listed(ctx: Ctx, repo_name: str | None) -> Response:
    login = require_user(ctx.principal)
    since, before = _time(ctx, "since"), _time(ctx, "before")
    everything, participating = _flag(ctx, "all"), _flag(ctx, "participating")
    shown = []
    for thread in store.threads_of(ctx.state, login):
        if repo_name and thread.repo.lower() != repo_name.lower():
            continue
        if (not everything and not thread.unread) or (
            participating and thread.reason not in store.PARTICIPATING
        ):
            continue
        if (since and thread.updated_at < since) or (before and thread.updated_at >= before):
            continue
        repo = _readable_repo(ctx, thread.repo)
        if repo is not None:
            shown.append((thread, repo))
    shown.sort(key=lambda pair: (pair[0].updated_at, int(pair[0].id)), reverse=True)
    return ctx.paginate(shown, lambda pair: thread_json(ctx, *pair))


@endpoint
def list_notifications(ctx: Ctx) -> Response:
    return _listed(ctx, None)


@endpoint
def list_repo_notifications(ctx: Ctx) -> Response:
    return _listed(ctx, ctx.repo().full_name)


def _read_before(ctx: Ctx, repo_name: str | None) -> Response:
    login = require_user(ctx.principal)
    body = ctx.json()
    raw = body.get("last_read_at")
    if raw is not None and not isinstance(raw, str):
        raise invalid_request(f"For 'properties/last_read_at', {raw!r} is not a string.")
    read = body.get("read", True)
    if not isinstance(read, bool):
        raise invalid_request(f"For 'properties/read', {read!r} is not a boolean.")
    # GitHub's times are whole seconds: a thread updated at the cutoff's second is covered
    cutoff = int(_parse_time(raw, "last_read_at") or time.time())
    marked = 0
    with ctx.state.lock:
        for thread in store.threads_of(ctx.state, login):
            if repo_name and thread.repo.lower() != repo_name.lower():
                continue
            if int(thread.updated_at) <= cutoff:
                marked += thread.unread == read
                thread.unread = not read
                thread.last_read_at = cutoff if read else thread.last_read_at
    if marked > store.AT_ONCE:
        # GitHub marks a large inbox in the background and says so; here it is done already
        return json_response({"message": BACKGROUND}, 202)
    return Response(status_code=205)  # marked at once (no message body)


@endpoint
def mark_all_read(ctx: Ctx) -> Response:
    return _read_before(ctx, None)


@endpoint
def mark_repo_read(ctx: Ctx) -> Response:
    return _read_before(ctx, ctx.repo().full_name)


def _thread(ctx: Ctx) -> tuple[store.Thread, RepoRecord]:
    login = require_user(ctx.principal)
    thread = store.inbox(ctx.state).threads.get(str(ctx.params["thread_id"]))
    if thread is None or thread.login.lower() != login.lower() or thread.done:
        raise not_found()
    repo = _readable_repo(ctx, thread.repo)
    if repo is None:
        raise not_found()
    return thread, repo


@endpoint
def get_thread(ctx: Ctx) -> Response:
    return json_response(thread_json(ctx, *_thread(ctx)))


@endpoint
def mark_thread_read(ctx: Ctx) -> Response:
    with ctx.state.lock:
        thread, _ = _thread(ctx)
        thread.unread, thread.last_read_at = False, int(time.time())
    return Response(status_code=205)


@endpoint
def mark_thread_done(ctx: Ctx) -> Response:
    with ctx.state.lock:
        thread, _ = _thread(ctx)
        thread.unread, thread.done = False, True
    return Response(status_code=204)


def subscription_json(ctx: Ctx, thread: store.Thread, repo: RepoRecord) -> dict[str, Any]:
    api = f"{ctx.urls.api}/notifications/threads/{thread.id}"
    return {
        "subscribed": not thread.ignored,
        "ignored": bool(thread.ignored),
        "reason": thread.reason,
        "created_at": iso(thread.subscribed_at or thread.updated_at),
        "url": f"{api}/subscription",
        "thread_url": api,
        "repository_url": ctx.urls.repo(repo.full_name),
    }


def _bool_field(body: dict[str, Any], name: str, default: bool | None) -> bool | None:
    value = body.get(name, default)
    if value is not None and not isinstance(value, bool):
        raise invalid_request(f"For 'properties/{name}', {value!r} is not a boolean.")
    return value


@endpoint
def get_thread_subscription(ctx: Ctx) -> Response:
    thread, repo = _thread(ctx)
    if thread.ignored is None:
        raise not_found()  # GitHub: 404 when the user has no subscription to the thread
    return json_response(subscription_json(ctx, thread, repo))


@endpoint
def set_thread_subscription(ctx: Ctx) -> Response:
    ignored = _bool_field(ctx.json(), "ignored", False)
    with ctx.state.lock:
        thread, repo = _thread(ctx)
        thread.ignored, thread.subscribed_at = bool(ignored), int(time.time())
    return json_response(subscription_json(ctx, thread, repo))


@endpoint
def delete_thread_subscription(ctx: Ctx) -> Response:
    with ctx.state.lock:
        thread, _ = _thread(ctx)
        thread.ignored = thread.subscribed_at = None
    return Response(status_code=204)


def repo_subscription_json(ctx: Ctx, repo: RepoRecord, sub: store.RepoSubscription) -> dict:
    api = ctx.urls.repo(repo.full_name)
    return {
        "subscribed": sub.subscribed,
        "ignored": sub.ignored,
        "reason": None,
        "created_at": iso(sub.created_at),
        "url": f"{api}/subscription",
        "repository_url": api,
    }


def _watch_key(ctx: Ctx, repo: RepoRecord) -> tuple[str, str]:
    return require_user(ctx.principal).lower(), repo.full_name.lower()


@endpoint
def get_repo_subscription(ctx: Ctx) -> Response:
    repo = ctx.repo()
    sub = store.inbox(ctx.state).watching.get(_watch_key(ctx, repo))
    if sub is None:
        raise not_found()  # not watching: GitHub answers 404
    return json_response(repo_subscription_json(ctx, repo, sub))


@endpoint
def set_repo_subscription(ctx: Ctx) -> Response:
    repo = ctx.repo()
    body = ctx.json()
    ignored = bool(_bool_field(body, "ignored", False))
    subscribed = bool(_bool_field(body, "subscribed", not ignored))
    sub = store.RepoSubscription(subscribed=subscribed and not ignored, ignored=ignored)
    with ctx.state.lock:
        store.inbox(ctx.state).watching[_watch_key(ctx, repo)] = sub
    return json_response(repo_subscription_json(ctx, repo, sub))


@endpoint
def delete_repo_subscription(ctx: Ctx) -> Response:
    repo = ctx.repo()
    with ctx.state.lock:
        store.inbox(ctx.state).watching.pop(_watch_key(ctx, repo), None)
    return Response(status_code=204)


def routes(state: ForgeState) -> list[Route]:
    thread = "/notifications/threads/{thread_id}"
    repo = "/repos/{owner}/{repo}"
    return [
        Route("/notifications", list_notifications, methods=["GET"]),
        Route("/notifications", mark_all_read, methods=["PUT"]),
        Route(thread, get_thread, methods=["GET"]),
        Route(thread, mark_thread_read, methods=["PATCH"]),
        Route(thread, mark_thread_done, methods=["DELETE"]),
        Route(thread + "/subscription", get_thread_subscription, methods=["GET"]),
        Route(thread + "/subscription", set_thread_subscription, methods=["PUT"]),
        Route(thread + "/subscription", delete_thread_subscription, methods=["DELETE"]),
        Route(repo + "/notifications", list_repo_notifications, methods=["GET"]),
        Route(repo + "/notifications", mark_repo_read, methods=["PUT"]),
        Route(repo + "/subscription", get_repo_subscription, methods=["GET"]),
        Route(repo + "/subscription", set_repo_subscription, methods=["PUT"]),
        Route(repo + "/subscription", delete_repo_subscription, methods=["DELETE"]),
    ]
