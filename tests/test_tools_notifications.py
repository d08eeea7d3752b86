"""Notification tools through a real MCP client against the forge: octocat's seeded inbox
on demo-app, the filters, marking read and done, thread and repository subscriptions (each
an unscoped write a human approves), and the allow-list, which hides other repositories'
threads and refuses writes to them. Evidence comes from the forge's inbox records; every
request and response is checked against GitHub's OpenAPI description."""

from __future__ import annotations

import time

from sandbox_forge.stores import notifications as inbox_store
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests

OTHER_REPO = "octo-org/private-notes"


def check_contract(forge) -> None:
    records = [
        r for r in forge.responses() if "notifications" in r["path"] or "subscription" in r["path"]
    ]
    assert records, "no notification requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


def fresh_thread(forge, repo: str = DEMO_REPO, reason: str = "mention") -> inbox_store.Thread:
    return inbox_store.add_thread(forge.state, "octocat", repo, "Issue", f"New {reason}", reason, 1)


def stored(forge, thread_id: str) -> inbox_store.Thread:
    return inbox_store.inbox(forge.state).threads[thread_id]


async def test_inbox_lists_the_demo_threads_with_filters(make_runtime, forge):
    demo = forge.state.extensions["demo_inbox"]
    rt = make_runtime()
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, unread = await call_tool(client, "list_notifications", {"limit": 100})
        # the forge is shared with other tests' threads: a whole page, newest first
        _, everything = await call_tool(
            client, "list_notifications", {"include_read": True, "limit": 100}
        )
        _, mine = await call_tool(
            client, "list_notifications", {"participating": True, "limit": 100}
        )
        _, in_repo = await call_tool(
            client, "list_notifications", {"full_name": DEMO_REPO, "include_read": True}
        )
        _, later = await call_tool(
            client, "list_notifications", {"since": "2999-01-01T00:00:00Z", "include_read": True}
        )
        _, detail = await call_tool(
            client, "get_notification_details", {"thread_id": demo["review_requested"]}
        )
        _, missing = await call_tool(client, "get_notification_details", {"thread_id": "999999"})
    unread_ids = {n["id"] for n in unread["notifications"]}
    all_ids = {n["id"] for n in everything["notifications"]}
    assert demo["read"] not in unread_ids and demo["read"] in all_ids
    assert {demo["review_requested"], demo["mention"]} <= {n["id"] for n in mine["notifications"]}
    assert demo["subscribed"] not in {n["id"] for n in mine["notifications"]}
    assert {n["repository"] for n in in_repo["notifications"]} == {DEMO_REPO}
    assert later["notifications"] == []
    assert detail["type"] == "PullRequest" and detail["reason"] == "review_requested"
    assert detail["url"].endswith(f"/{DEMO_REPO}/pull/{detail['number']}")
    assert detail.get("subscription") is None  # none of its own: the repository's applies
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_writes_need_approval(make_runtime, forge):
    thread = fresh_thread(forge)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, read = await call_tool(client, "dismiss_notification", {"thread_id": thread.id})
        _, every = await call_tool(client, "mark_all_notifications_read")
        _, watch = await call_tool(
            client,
            "manage_repository_notification_subscription",
            {"full_name": DEMO_REPO, "action": "ignore"},
        )
        writes = write_requests(forge)
    assert {error_code(read), error_code(every), error_code(watch)} == {"write_not_allowed"}
    assert writes == []
    assert stored(forge, thread.id).unread is True


async def test_dismiss_subscribe_and_mark_read(make_runtime, forge):
    first, second, old = fresh_thread(forge), fresh_thread(forge), fresh_thread(forge)
    rt = make_runtime(auto_approve=True)
    forge.clear_responses()
    async with mcp_client(rt) as client:
        _, read = await call_tool(client, "dismiss_notification", {"thread_id": first.id})
        _, done = await call_tool(
            client, "dismiss_notification", {"thread_id": second.id, "state": "done"}
        )
        _, ignored = await call_tool(
            client, "manage_notification_subscription", {"thread_id": first.id, "action": "ignore"}
        )
        _, detail = await call_tool(client, "get_notification_details", {"thread_id": first.id})
        _, gone = await call_tool(client, "get_notification_details", {"thread_id": second.id})
        _, repo_sub = await call_tool(
            client,
            "manage_repository_notification_subscription",
            {"full_name": DEMO_REPO, "action": "ignore"},
        )
        watching = inbox_store.inbox(forge.state).watching[("octocat", DEMO_REPO)]
        _, all_read = await call_tool(
            client, "mark_all_notifications_read", {"full_name": DEMO_REPO}
        )
        _, rewatch = await call_tool(
            client,
            "manage_repository_notification_subscription",
            {"full_name": DEMO_REPO, "action": "watch"},
        )
    assert read["state"] == "read" and stored(forge, first.id).unread is False
    assert done["state"] == "done" and stored(forge, second.id).done is True
    assert error_code(gone) == "not_found"
    assert ignored["subscription"] == "ignored" and stored(forge, first.id).ignored is True
    assert detail["subscription"] == "ignored" and detail["unread"] is False
    assert repo_sub["subscription"] == "ignored" and watching.ignored is True
    assert all_read["state"] == "read" and stored(forge, old.id).unread is False
    assert rewatch["subscription"] == "watching"
    assert inbox_store.inbox(forge.state).watching[("octocat", DEMO_REPO)].subscribed is True
    check_contract(forge)


async def test_allow_list_hides_and_refuses_other_repositories(make_runtime, forge):
    outside = fresh_thread(forge, OTHER_REPO)
    rt = make_runtime(auto_approve=True, repo_allowlist=DEMO_REPO)
    async with mcp_client(rt) as client:
        _, listed = await call_tool(client, "list_notifications", {"include_read": True})
        _, detail = await call_tool(client, "get_notification_details", {"thread_id": outside.id})
        forge.clear_requests()
        _, dismissed = await call_tool(
            client, "dismiss_notification", {"thread_id": outside.id, "state": "done"}
        )
        _, muted = await call_tool(
            client,
            "manage_notification_subscription",
            {"thread_id": outside.id, "action": "ignore"},
        )
        _, every = await call_tool(client, "mark_all_notifications_read")
        _, repo_sub = await call_tool(
            client,
            "manage_repository_notification_subscription",
            {"full_name": OTHER_REPO, "action": "watch"},
        )
        writes = write_requests(forge)
    assert outside.id not in {n["id"] for n in listed["notifications"]}
    assert {n["repository"] for n in listed["notifications"]} == {DEMO_REPO}
    assert error_code(detail) == error_code(dismissed) == error_code(muted) == "repo_not_allowed"
    assert error_code(repo_sub) == "repo_not_allowed" and error_code(every) == "invalid_input"
    assert writes == []
    thread = stored(forge, outside.id)
    assert thread.unread is True and thread.done is False and thread.ignored is None
    assert ("octocat", OTHER_REPO) not in inbox_store.inbox(forge.state).watching


async def test_bad_thread_ids_never_reach_the_forge(make_runtime, forge):
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        results = [
            await call_tool(client, "dismiss_notification", {"thread_id": bad})
            for bad in ("../1", "1/subscription", "-1", "")
        ]
        _, since = await call_tool(client, "list_notifications", {"since": "yesterday"})
        writes = write_requests(forge)
    assert all(is_error for is_error, _ in results) and since["error"]["code"] == "invalid_input"
    assert writes == []


def iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(stamp))


def thread_at(forge, repo: str, updated_at: float) -> inbox_store.Thread:
    return inbox_store.add_thread(
        forge.state, "octocat", repo, "Issue", "Sweep", "mention", 1, updated_at=updated_at
    )


def test_the_demo_inbox_is_dated_in_whole_seconds_and_never_ahead_of_now(forge):
    demo = forge.state.extensions["demo_inbox"]
    threads = [stored(forge, thread_id) for thread_id in demo.values()]
    assert all(t.updated_at <= time.time() for t in threads)
    assert all(t.updated_at == int(t.updated_at) for t in threads)


async def test_mark_all_read_says_how_many_and_what_stays_unread(make_runtime, forge):
    repo = new_repo(forge, prefix="inbox-org")
    cutoff = int(time.time()) - 100
    old = thread_at(forge, repo, cutoff - 30.25)
    # updated within the cutoff's second: GitHub's times are whole seconds, so it is read
    same_second = thread_at(forge, repo, cutoff + 0.9)
    newer = thread_at(forge, repo, cutoff + 50)
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, answer = await call_tool(
            client, "mark_all_notifications_read", {"full_name": repo, "last_read_at": iso(cutoff)}
        )
    assert answer["marked"] == 2 and answer["still_unread"] == 1, answer
    assert answer["in_background"] is False and "stay unread" in answer["hint"]
    assert stored(forge, old.id).unread is False and stored(forge, same_second.id).unread is False
    assert stored(forge, same_second.id).last_read_at == cutoff
    assert stored(forge, newer.id).unread is True
    check_contract(forge)


async def test_a_large_sweep_is_marked_in_the_background_and_says_so(make_runtime, forge):
    repo = new_repo(forge, prefix="inbox-org")
    many = [thread_at(forge, repo, time.time() - 60) for _ in range(inbox_store.AT_ONCE + 5)]
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, answer = await call_tool(client, "mark_all_notifications_read", {"full_name": repo})
    assert answer["in_background"] is True and "background" in answer["hint"], answer
    assert answer.get("marked") is None  # GitHub did not say how many yet
    (put,) = [r for r in forge.responses() if r["method"] == "PUT"]
    assert put["status"] == 202 and "background" in put["body"]["message"]
    assert not any(stored(forge, t.id).unread for t in many)
    check_contract(forge)
