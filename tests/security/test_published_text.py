"""What the human reads covers what is published, for every write tool that takes text.

The tools are read from the registry (published_text.py: each write tool's free-text
arguments, from its input schema), so a new one fails here until it has a scene. Each
scene calls the tool with that text made hostile: a long body (every line of it must be
on the page), a right-to-left override, zero-width characters and a control character.
The approval page, opened in Chromium as the human does, must show every line, with each
hidden character made visible (`⟨U+202E⟩`) and none left raw; the forge's request log must
hold no write: nothing is written before the approval."""

from __future__ import annotations

import json
import uuid
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

import github_mcp.tools  # noqa: F401  (registers every built-in tool)
from github_mcp.kernel.hidden_text import make_visible, strip_invisible
from github_mcp.pipeline.registry import REGISTRY
from sandbox_forge.admin.collab_seeding import add_review_thread, create_issue
from sandbox_forge.admin.demo_breadth import _release as _release_record
from sandbox_forge.stores import copilot
from sandbox_forge.stores import gists as gist_store
from sandbox_forge.stores import issue_meta as meta
from tests.approvals.conftest import TOKEN_A, http_client, visit_approval_page
from tests.approvals.conftest import approval_server as approval_server  # the HTTP server
from tests.conftest import call_tool
from tests.security.published_text import REFERENCES, published_text
from tests.security.test_write_bindings import fresh_item
from tests.test_tools_pull_reviews import new_pull
from tests.test_tools_write import new_repo, write_requests

HIDDEN = ("\u202e", "\u200b", "\u2066", "\x07")
DEMO = "octo-org/demo-app"
README = "# demo\n" + "".join(f"line {n}\n" for n in range(1, 11))


def say(name: str, limit: int = 6000) -> str:
    """Hostile text for one argument: hidden characters, and below a long limit many
    lines, each named, so a page that cuts it misses one."""
    head = f"{name}: ship it\u202etxt.exe zero\u200bwidth \u2066isolated\u2069 bell\x07"
    if limit < 2000:
        return head[:limit]
    lines = [head] + [f"{name} line {n}: why this matters, in full" for n in range(1, 121)]
    return "\n".join(lines)[: limit - 12] + f"\n{name} END"


World = Any  # the forge
Scene = Callable[[World, Any], Awaitable[dict[str, Any]]]
SCENES: dict[str, Scene] = {}


def scene(*names: str) -> Callable[[Scene], Scene]:
    def register(build: Scene) -> Scene:
        for name in names:
            SCENES[name] = build
        return build

    return register


@scene("trigger_workflow_dispatch")
async def _dispatch(forge: World, model: Any) -> dict[str, Any]:
    inputs = {"note": say("note", 1000)}
    return {"full_name": DEMO, "workflow": "ci.yml", "ref": "main", "inputs": inputs}


@scene("terminal_command")
async def _terminal(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": new_repo(forge), "ref": "main", "command": "echo " + say("command")}


@scene("run_tests")
async def _run_tests(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": new_repo(forge), "ref": "main", "test_command": say("test", 4000)}


@scene("commit_workspace")
async def _workspace(forge: World, model: Any) -> dict[str, Any]:
    repo = new_repo(forge)
    is_error, clone = await call_tool(model, "ensure_workspace_clone", {"full_name": repo})
    assert not is_error, clone
    Path(clone["path"], "NOTES.md").write_text("notes\n")
    return {"full_name": repo, "ref": "main", "message": say("message")}


def _commit_repo(forge: World) -> str:
    return new_repo(forge, {"README.md": README})


@scene("apply_text_update_and_commit")
async def _text_update(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": _commit_repo(forge), "branch": "main", "path": "README.md",
            "new_content": say("content"), "message": say("message")}  # fmt: skip


@scene("apply_patch_and_commit")
async def _patch(forge: World, model: Any) -> dict[str, Any]:
    added = say("patch").splitlines()
    patch = f"--- /dev/null\n+++ b/NEW.md\n@@ -0,0 +1,{len(added)} @@\n"
    patch += "".join(f"+{line}\n" for line in added)
    return {"full_name": _commit_repo(forge), "branch": "main", "patch": patch,
            "message": say("message")}  # fmt: skip


@scene("update_file_sections_and_commit")
async def _sections(forge: World, model: Any) -> dict[str, Any]:
    section = {"start_line": 2, "end_line": 3, "new_text": say("section") + "\n"}
    return {"full_name": _commit_repo(forge), "branch": "main", "path": "README.md",
            "sections": [section], "message": say("message")}  # fmt: skip


@scene("commit_files")
async def _files(forge: World, model: Any) -> dict[str, Any]:
    files = [{"path": "NOTES.md", "content": say("content")}]
    args = {"full_name": _commit_repo(forge), "files": files, "message": say("message")}
    return args | {"branch": "main"}


@scene("update_files_and_open_pr")
async def _files_pr(forge: World, model: Any) -> dict[str, Any]:
    texts = {"title": say("title", 300), "body": say("body")}
    return await _files(forge, model) | texts | {"branch": "topic", "base": "main"}


@scene("delete_file", "move_file")
async def _file_moves(forge: World, model: Any) -> dict[str, Any]:
    args = {"full_name": _commit_repo(forge), "branch": "main", "path": "README.md"}
    return args | {"new_path": "docs/README.md", "message": say("message")}


@scene("add_discussion_comment")
async def _discussion(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": DEMO, "number": 10, "body": say("body")}


@scene("create_gist", "update_gist")
async def _gist(forge: World, model: Any) -> dict[str, Any]:
    gist = gist_store.create_gist(forge.state, "octocat", {"a.md": "a\n"}, "mine", True)
    files = {"notes.md": say("file")}
    return {"gist_id": gist.id, "files": files, "description": say("description", 1000)}


@scene("set_issue_type")
async def _issue_type(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": DEMO, "number": 4, "type": "Task", "rationale": say("why", 280)}


@scene("set_issue_fields")
async def _issue_fields(forge: World, model: Any) -> dict[str, Any]:
    org = f"text-org-{uuid.uuid4().hex[:8]}"
    forge.state.ensure_user(org, type="Organization")
    forge.seed_repo(f"{org}/tracker", {"README.md": "# t\n"})
    meta.add_field(forge.state, org, "Notes", "text")
    number = create_issue(forge, f"{org}/tracker", "Track")["number"]
    return {"full_name": f"{org}/tracker", "number": number, "values": {"Notes": say("notes")}}


def _issue_args(forge: World) -> dict[str, Any]:
    repo = new_repo(forge)
    number = create_issue(forge, repo, "An issue")["number"]
    return {"full_name": repo, "number": number, "title": say("title", 300)}


@scene("create_issue", "update_issue")
async def _issue(forge: World, model: Any) -> dict[str, Any]:
    return _issue_args(forge) | {"body": say("body"), "labels": [say("label", 50)]}


@scene("comment_on_issue")
async def _comment(forge: World, model: Any) -> dict[str, Any]:
    return _issue_args(forge) | {"body": say("body")}


@scene("create_label", "update_label")
async def _label(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": new_repo(forge), "name": say("label", 100), "color": "ff0000",
            "new_name": say("renamed", 100), "description": say("description", 100)}  # fmt: skip


@scene("update_project_item_field")
async def _project_value(forge: World, model: Any) -> dict[str, Any]:
    project, item, notes, _ = fresh_item(forge)
    return {"project_id": project.node_id, "item_id": item.node_id,
            "field_id": notes.node_id, "text": say("value", 1024)}  # fmt: skip


@scene("create_pull_request")
async def _new_pull(forge: World, model: Any) -> dict[str, Any]:
    repo = new_repo(forge, branches={"topic": {"topic.txt": "t\n"}})
    return {"full_name": repo, "head": "topic", "title": say("title", 300), "body": say("body")}


async def _pull(forge: World, model: Any) -> dict[str, Any]:
    repo, pull = new_pull(forge)
    return {"full_name": repo, "number": pull.number}


@scene("update_pull_request", "comment_on_pull_request", "add_pr_labels")
async def _pull_text(forge: World, model: Any) -> dict[str, Any]:
    texts = {"title": say("title", 300), "body": say("body"), "labels": [say("label", 50)]}
    return await _pull(forge, model) | texts


@scene("create_pr_review", "pending_pr_review")
async def _review(forge: World, model: Any) -> dict[str, Any]:
    comment = {"path": "feature.txt", "line": 1, "body": say("comment")}
    texts = {"body": say("body"), "comments": [comment], "event": "COMMENT"}
    return await _pull(forge, model) | texts | {"action": "start"}


@scene("merge_pull_request")
async def _merge(forge: World, model: Any) -> dict[str, Any]:
    texts = {"commit_title": say("title", 300), "commit_message": say("message")}
    return await _pull(forge, model) | texts | {"merge_method": "squash"}


@scene("reply_to_review_thread")
async def _reply(forge: World, model: Any) -> dict[str, Any]:
    args = await _pull(forge, model)
    thread = add_review_thread(forge, args["full_name"], args["number"], "feature.txt", 1, "?")
    return args | {"thread_id": thread["thread_id"], "body": say("reply")}


@scene("draft_release", "update_release")
async def _release(forge: World, model: Any) -> dict[str, Any]:
    repo = new_repo(forge)
    drafted = _release_record(
        forge.state, forge.state.repo(*repo.split("/")), "v1.0", "main", draft=True, body="notes"
    )
    texts = {"name": say("name", 256), "body": say("body")}
    return {"full_name": repo, "tag": "v2.0", "release_id": drafted.id} | texts


@scene("create_repository")
async def _repository(forge: World, model: Any) -> dict[str, Any]:
    return {"name": f"new-{uuid.uuid4().hex[:8]}", "description": say("description", 350)}


@scene("set_security_alert_state")
async def _alert(forge: World, model: Any) -> dict[str, Any]:
    return {"full_name": DEMO, "kind": "code_scanning", "number": 1, "state": "dismissed",
            "reason": "false_positive", "comment": say("comment", 280)}  # fmt: skip


@scene("assign_copilot_to_issue")
async def _copilot(forge: World, model: Any) -> dict[str, Any]:
    repo = new_repo(forge, prefix="copilot-org")
    copilot.enable(forge.state, repo)
    number = create_issue(forge, repo, "Add a health check")["number"]
    texts = {"instructions": say("instructions"), "rationale": say("rationale", 280)}
    return {"full_name": repo, "number": number} | texts


def _text_writes() -> dict[str, dict[str, list[str]]]:
    writes = {s.name: published_text(s) for s in REGISTRY.values() if s.write}
    return {name: texts for name, texts in writes.items() if texts}


TEXT_WRITES = _text_writes()


@scene("create_project")
async def _new_project(forge: World, model: Any) -> dict[str, Any]:
    return {"owner": "octo-org", "title": say("title", 256)}


@scene(
    "update_project_items", "create_project_status_update", "create_project_view",
    "create_project_iteration_field",
)  # fmt: skip
async def _project_admin(forge: World, model: Any) -> dict[str, Any]:
    project, item, _, _ = fresh_item(forge)
    texts = {"value": say("value", 1024), "body": say("body"), "name": say("name", 100)}
    return {"project_id": project.node_id, "item_ids": [item.node_id], "field": "Notes",
            "filter": say("filter", 1024), "start_date": "2026-01-05"} | texts  # fmt: skip


def test_every_write_that_publishes_text_has_a_scene():
    assert len(TEXT_WRITES) >= 30, sorted(TEXT_WRITES)
    missing = sorted(set(TEXT_WRITES) - set(SCENES))
    assert missing == [], f"give each a scene in {__name__}: {missing}"
    assert sorted(set(SCENES) - set(TEXT_WRITES)) == []
    for key, why in REFERENCES.items():  # each exemption still names an argument
        tool, arg = key.split(".", 1)
        assert tool == "*" or tool in REGISTRY, key
        assert len(why) > 10


def _not_shown(value: str, page: str) -> list[str]:
    """The lines of `value` the page does not show, with their line breaks: made
    visible, or as written when the tool removes hidden characters; a file's new lines
    in its diff (`+line`); a one-line value inside a JSON list. Empty when all are."""
    lines = page.splitlines()
    for form in (make_visible(value), strip_invisible(value)):
        if form in page or all(f"+{line}" in lines for line in form.splitlines()):
            return []
    quoted = make_visible(json.dumps(value, ensure_ascii=False))
    if "\n" not in value and quoted in page:
        return []
    return [line for line in make_visible(value).splitlines() if line not in page]


def _parameters(tool: str) -> set[str]:
    return {p.name for p in REGISTRY[tool].signature()[0]}


def _at(value: Any, path: list[str]) -> list[str]:
    """The strings at a schema path (".comments.[].body") inside an argument's value."""
    if not path:
        return [value] if isinstance(value, str) else []
    step, rest = path[0], path[1:]
    if step == "[]" and isinstance(value, list):
        return [t for v in value for t in _at(v, rest)]
    if step == "*" and isinstance(value, dict):
        return [t for v in value.values() for t in _at(v, rest)]
    if isinstance(value, dict) and step in value:
        return _at(value[step], rest)
    return []


@pytest.mark.parametrize("tool", sorted(TEXT_WRITES))
async def test_the_page_shows_the_text_in_full_before_anything_is_written(
    approval_server, forge, tool
):
    with approval_server(protected_branches="*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            args = await SCENES[tool](forge, model)  # shared scenes: the tool's own args
            args = {k: v for k, v in args.items() if k in _parameters(tool)}
            texts = [
                text
                for paths in TEXT_WRITES[tool].values()
                for path in paths
                for text in _at(args, path.split(".")[1:])
            ]
            assert texts and all(any(c in t for c in HIDDEN) for t in texts), (tool, args)
            forge.clear_requests()
            is_error, asked = await call_tool(model, tool, args)
            assert is_error and asked["error"]["code"] == "write_not_allowed", asked
            visit = await visit_approval_page(asked["error"]["approval_url"], None, token=TOKEN_A)
    assert write_requests(forge) == []  # nothing written before the human decides
    assert visit.status == 200, visit.text
    assert not [c for c in HIDDEN if c in visit.text]  # none left raw
    for text in texts:
        assert _not_shown(text, visit.text) == [], (tool, visit.text[:3000])
