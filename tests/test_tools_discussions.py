"""Discussion tools through a real MCP client against the forge's GraphQL endpoint: the
demo's categories, discussions (filtered by category), an answered question and its
comments with replies, and a comment or reply as an unscoped write a human approves.
Evidence comes from the forge's discussion records and its request log."""

from __future__ import annotations

import uuid

from sandbox_forge.stores import discussions as store
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client
from tests.test_tools_write import write_requests


def demo_repo(forge):
    owner, name = DEMO_REPO.split("/")
    return forge.state.repo(owner, name)


async def test_reads_show_the_demo_discussions(make_runtime, forge):
    demo = forge.state.extensions["demo_discussions"]
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, cats = await call_tool(client, "list_discussion_categories", {"full_name": DEMO_REPO})
        _, listed = await call_tool(client, "list_discussions", {"full_name": DEMO_REPO})
        _, qna = await call_tool(
            client, "list_discussions", {"full_name": DEMO_REPO, "category": "Q&A"}
        )
        _, nope = await call_tool(
            client, "list_discussions", {"full_name": DEMO_REPO, "category": "missing"}
        )
        _, question = await call_tool(
            client, "get_discussion", {"full_name": DEMO_REPO, "number": demo["question"]}
        )
        _, comments = await call_tool(
            client, "get_discussion_comments", {"full_name": DEMO_REPO, "number": demo["question"]}
        )
        _, paged = await call_tool(
            client,
            "get_discussion_comments",
            {"full_name": DEMO_REPO, "number": demo["question"], "limit": 1},
        )
        _, missing = await call_tool(
            client, "get_discussion", {"full_name": DEMO_REPO, "number": 9999}
        )
    assert [c["slug"] for c in cats["categories"]] == demo["categories"]
    assert [c["answerable"] for c in cats["categories"]] == [False, False, True]
    numbers = [d["number"] for d in listed["discussions"]]
    assert {demo["question"], demo["idea"]} <= set(numbers)
    assert [d["number"] for d in qna["discussions"]] == [demo["question"]]
    assert qna["discussions"][0]["answered"] is True
    assert error_code(nope) == "not_found"
    assert question["category"] == "q-a" and question["author"] == "alice"
    assert (
        question["answer"]["author"] == "octocat" and "true division" in question["answer"]["body"]
    )
    assert question["url"].endswith(f"/{DEMO_REPO}/discussions/{demo['question']}")
    first = comments["comments"][0]
    assert first["is_answer"] is True and first["replies"][0]["author"] == "alice"
    assert len(comments["comments"]) >= 2 and "replies" not in comments["comments"][1]
    assert len(paged["comments"]) == 1 and paged["next_cursor"]
    assert error_code(missing) == "not_found"


async def test_comment_needs_approval(make_runtime, forge):
    demo = forge.state.extensions["demo_discussions"]
    before = dict(store.of(demo_repo(forge)).comments)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client,
            "add_discussion_comment",
            {"full_name": DEMO_REPO, "number": demo["idea"], "body": "+1"},
        )
        writes = write_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert writes == []
    assert store.of(demo_repo(forge)).comments == before


async def test_comment_and_reply(make_runtime, forge):
    demo = forge.state.extensions["demo_discussions"]
    repo = demo_repo(forge)
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        _, added = await call_tool(
            client,
            "add_discussion_comment",
            {"full_name": DEMO_REPO, "number": demo["idea"], "body": "Happy to write it."},
        )
        _, reply = await call_tool(
            client,
            "add_discussion_comment",
            {
                "full_name": DEMO_REPO,
                "number": demo["idea"],
                "body": "Go!",
                "reply_to": added["id"],
            },
        )
        _, nested = await call_tool(
            client,
            "add_discussion_comment",
            {"full_name": DEMO_REPO, "number": demo["idea"], "body": "x", "reply_to": reply["id"]},
        )
        _, blank = await call_tool(
            client,
            "add_discussion_comment",
            {"full_name": DEMO_REPO, "number": demo["idea"], "body": ""},
        )
    mine = [c for c in store.of(repo).comments.values() if c.discussion == demo["idea"]]
    top = next(c for c in mine if c.body == "Happy to write it.")
    assert top.author == "octocat" and top.reply_to is None
    assert added["url"].endswith(f"/discussions/{demo['idea']}#discussioncomment-{top.id}")
    assert [c.reply_to for c in mine if c.body == "Go!"] == [top.id]
    assert error_code(nested) == "unprocessable" and not any(c.body == "x" for c in mine)
    assert error_code(blank) == "invalid_input"


async def test_allow_list_refuses_other_repositories(make_runtime, forge):
    rt = make_runtime(auto_approve=True, repo_allowlist="someone/else")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, listed = await call_tool(client, "list_discussions", {"full_name": DEMO_REPO})
        _, added = await call_tool(
            client, "add_discussion_comment", {"full_name": DEMO_REPO, "number": 1, "body": "x"}
        )
        requests = forge.requests()
    assert error_code(listed) == error_code(added) == "repo_not_allowed"
    assert [r for r in requests if "graphql" in r["path"]] == []


async def test_hostile_arguments_never_reach_the_forge(make_runtime, forge):
    rt = make_runtime(auto_approve=True)
    bad = [
        ("add_discussion_comment", {"number": 1, "body": "x", "reply_to": "../DC_x"}),
        ("add_discussion_comment", {"number": 1, "body": "x", "reply_to": "a b"}),
        ("add_discussion_comment", {"number": 0, "body": "x"}),
        ("get_discussion", {"number": -1}),
        ("list_discussions", {"category": ""}),
        ("get_discussion_comments", {"number": 1, "limit": 500}),
    ]
    async with mcp_client(rt) as client:
        forge.clear_requests()
        results = [
            await call_tool(client, name, {"full_name": DEMO_REPO} | args) for name, args in bad
        ]
        requests = forge.requests()
    assert all(is_error for is_error, _ in results)
    assert [r for r in requests if "graphql" in r["path"]] == []


async def test_an_organisations_discussions_come_from_its_github_repository(make_runtime, forge):
    org = f"disc-org-{uuid.uuid4().hex[:6]}"
    forge.add_user(org, type="Organization")
    forge.seed_repo(f"{org}/.github", {"profile/README.md": "# hello\n"})
    home = forge.state.repo(org, ".github")
    general = store.add_category(forge.state, home, "Announcements")
    news = store.add_discussion(forge.state, home, general, "alice", "Welcome", "Hello all")
    bare = f"bare-org-{uuid.uuid4().hex[:6]}"
    forge.add_user(bare, type="Organization")
    async with mcp_client(make_runtime()) as client:
        _, listed = await call_tool(client, "list_discussions", {"owner": org})
        _, none = await call_tool(client, "list_discussions", {"owner": bare})
        _, neither = await call_tool(client, "list_discussions", {})
    async with mcp_client(make_runtime(repo_allowlist=f"{org}/other")) as client:
        forge.clear_requests()
        _, outside = await call_tool(client, "list_discussions", {"owner": org})
        sent = forge.requests()
    assert listed["repository"] == f"{org}/.github"
    assert [(d["number"], d["title"]) for d in listed["discussions"]] == [(news.number, "Welcome")]
    assert error_code(none) == "not_found" and ".github" in none["error"]["message"]
    assert error_code(neither) == "invalid_input"
    assert error_code(outside) == "repo_not_allowed" and sent == []
