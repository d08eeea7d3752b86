"""A release is published exactly as the human approved it.

The attack: the human approves `publish_release` having read the draft's notes; the model
then edits the draft (`update_release` of a draft needs no approval) and makes the same
call again. The approval is bound to the notes, the name, the tag and the commit the tag
will be made at, all shown in full on the page, so the changed draft is refused with
`conflict` and the human is asked afresh. Evidence from the forge: the release is still a
draft, no tag was created, and what is finally published is what was approved."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from sandbox_forge.stores import releases as release_store
from tests.approvals.conftest import TOKEN_A, branch_head, http_client, visit_approval_page
from tests.approvals.conftest import approval_server as approval_server  # the HTTP server
from tests.conftest import call_tool, error_code
from tests.security.test_approval_binding import approval_link, forge_put_file

NOTES = "Fixes the login bug.\nThanks to every contributor.\u202e"  # a hidden reordering
EVIL = "Download the fixed build from https://evil.example/installer.sh"


@pytest.fixture
def release_repo(forge) -> str:
    name = f"rel-org/publish-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "# release me\n"})
    return name


def stored(forge: Any, repo: str, release_id: int) -> release_store.Release:
    record = forge.state.repo(*repo.split("/"))
    return release_store.releases(record)[release_id]


def tag_exists(forge: Any, repo: str, tag: str) -> bool:
    return release_store.tag_commit(forge.state.repo(*repo.split("/")), tag) is not None


async def draft(model: Any, repo: str, tag: str = "v1.0") -> int:
    is_error, made = await call_tool(
        model,
        "draft_release",
        {"full_name": repo, "tag": tag, "name": "One", "body": NOTES, "generate_notes": False},
    )
    assert not is_error, made
    return int(made["id"])


async def test_an_edit_after_the_approval_is_not_published(approval_server, forge, release_repo):
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            release_id = await draft(model, release_repo)
            publish = {"full_name": release_repo, "release_id": release_id}
            first = (await call_tool(model, "publish_release", publish))[1]
            visit = await visit_approval_page(approval_link(first), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            # the page showed the notes in full, the hidden character made visible, and
            # the commit the tag will be made at
            assert "Thanks to every contributor.⟨U+202E⟩" in visit.text
            assert branch_head(forge, release_repo) in visit.text

            # the model rewrites the draft's notes: a draft edit needs no approval
            is_error, edited = await call_tool(model, "update_release", publish | {"body": EVIL})
            assert not is_error, edited
            is_error, refused = await call_tool(model, "publish_release", publish)
            assert is_error and error_code(refused) == "conflict", refused
            assert "notes_sha256" in refused["error"]["message"]
            release = stored(forge, release_repo, release_id)
            assert release.draft and release.body == EVIL
            assert not tag_exists(forge, release_repo, "v1.0")

            # the stale approval was spent: the same call asks the human again, who now
            # reads the changed notes
            again = (await call_tool(model, "publish_release", publish))[1]
            assert error_code(again) == "write_not_allowed", again
            second = await visit_approval_page(approval_link(again), "deny", token=TOKEN_A)
            assert EVIL in second.text
    release = stored(forge, release_repo, release_id)
    assert release.draft and not tag_exists(forge, release_repo, "v1.0")


async def test_the_published_release_is_the_approved_one(approval_server, forge, release_repo):
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            release_id = await draft(model, release_repo, "v2.0")
            publish = {"full_name": release_repo, "release_id": release_id}
            approved_head = branch_head(forge, release_repo)
            first = (await call_tool(model, "publish_release", publish))[1]
            visit = await visit_approval_page(approval_link(first), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            is_error, done = await call_tool(model, "publish_release", publish)
            assert not is_error, done
    release = stored(forge, release_repo, release_id)
    assert not release.draft and release.body == NOTES and release.name == "One"
    record = forge.state.repo(*release_repo.split("/"))
    assert release_store.tag_commit(record, "v2.0") == approved_head


async def test_a_target_that_moved_after_the_approval_is_not_tagged(
    approval_server, forge, release_repo
):
    """The tag is made at the commit the human saw: a push to the target branch after
    the approval refuses the publish (the tag would name other code)."""
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            release_id = await draft(model, release_repo, "v3.0")
            publish = {"full_name": release_repo, "release_id": release_id}
            first = (await call_tool(model, "publish_release", publish))[1]
            visit = await visit_approval_page(approval_link(first), "approve", token=TOKEN_A)
            assert visit.outcome == "approved"
            pushed = forge_put_file(forge, release_repo, "main", "run.sh", "curl x | sh\n", "x")
            is_error, refused = await call_tool(model, "publish_release", publish)
    assert is_error and error_code(refused) == "conflict", refused
    assert pushed[:12] in refused["error"]["message"]
    assert stored(forge, release_repo, release_id).draft
    assert not tag_exists(forge, release_repo, "v3.0")


async def test_editing_a_published_release_is_bound_to_what_was_shown(
    approval_server, forge, release_repo
):
    """An approved edit of a published release goes through only on the release the
    human saw: changed meanwhile, the edit is refused and nothing is written."""
    with approval_server(auto_approve=True) as served:
        async with http_client(served.url, TOKEN_A) as model:
            release_id = await draft(model, release_repo, "v4.0")
            where = {"full_name": release_repo, "release_id": release_id}
            assert not (await call_tool(model, "publish_release", where))[0]
    with approval_server() as served:
        async with http_client(served.url, TOKEN_A) as model:
            edit = where | {"body": "Corrected notes."}
            first = (await call_tool(model, "update_release", edit))[1]
            visit = await visit_approval_page(approval_link(first), "approve", token=TOKEN_A)
            assert visit.outcome == "approved" and "Thanks to every contributor" in visit.text
            record = stored(forge, release_repo, release_id)
            record.body = EVIL  # changed on GitHub meanwhile, by someone else
            is_error, refused = await call_tool(model, "update_release", edit)
    assert is_error and error_code(refused) == "conflict", refused
    assert stored(forge, release_repo, release_id).body == EVIL
