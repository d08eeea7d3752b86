"""What the human reads is what is written.

A path holding U+202E renders reversed (`evil\u202etxt.sh` reads as `evilhs.txt`), so such
names are refused before anything is written. Text from GitHub that holds such characters
(a PR title, a commit message) is shown on the approval page and in form prompts with
them made visible (`⟨U+202E⟩`). Titles, messages and bodies are shown in full; every
write, section edits included, shows line counts and a diff; look-alike names get a
warning. The approval page is driven with Chromium; evidence of refusals is the forge."""

from __future__ import annotations

import uuid
from typing import Any

import pytest
from fastmcp import Client

from github_mcp.serving.server import build_mcp
from tests.approvals.conftest import (
    TOKEN_A,
    approval_server,  # noqa: F401  (fixture)
    branch_head,
    http_client,
    visit_approval_page,
)
from tests.approvals.test_form import Human
from tests.conftest import call_tool, error_code, mcp_client
from tests.security.test_approval_binding import PROTECTED, TOPIC, forge_put_file

RLO = "\u202e"
README = "# demo\n" + "".join(f"line {n}\n" for n in range(1, 11))


@pytest.fixture
def repo(forge) -> str:
    name = f"read-org/page-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": README}, branches={PROTECTED: {}, TOPIC: {}})
    return name


def approval_link(payload: dict[str, Any]) -> str:
    assert payload["error"]["code"] == "write_not_allowed", payload
    return payload["error"]["approval_url"]


async def page_for(served: Any, tool: str, args: dict[str, Any]) -> Any:
    async with http_client(served.url, TOKEN_A) as model:  # the link lives with the session
        payload = (await call_tool(model, tool, args))[1]
        return await visit_approval_page(approval_link(payload), None, token=TOKEN_A)


@pytest.mark.parametrize(
    "path", [f"evil{RLO}txt.sh", "a\u200bb.txt", "\u2066x\u2069.md", "bell\x07.txt", "ok/\u202a.md"]
)
async def test_hidden_characters_in_a_path_are_refused(make_runtime, forge, repo, path):
    before = branch_head(forge, repo, TOPIC)
    rt = make_runtime()
    async with mcp_client(rt) as client:
        args = {
            "full_name": repo,
            "branch": TOPIC,
            "message": "add",
            "files": [{"path": path, "content": "x\n"}],
        }
        is_error, payload = await call_tool(client, "commit_files", args)
        assert is_error and error_code(payload) == "invalid_input", payload
        assert "⟨U+" in payload["error"]["message"]  # the refusal shows what was hidden
        patch = f"--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+x\n"
        is_error, payload = await call_tool(
            client,
            "apply_patch_and_commit",
            {"full_name": repo, "branch": TOPIC, "message": "add", "patch": patch},
        )
        assert is_error and error_code(payload) == "invalid_input", payload
        assert payload["error"].get("hint")
    assert branch_head(forge, repo, TOPIC) == before


async def test_hidden_characters_in_a_branch_name_are_refused(make_runtime, forge, repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        for name in (f"fix{RLO}niam", "fix\u200b", "fix\u2067x"):
            args = {"full_name": repo, "branch": name, "from_ref": TOPIC}
            is_error, payload = await call_tool(client, "create_branch", args)
            assert is_error and error_code(payload) == "invalid_input", payload
    assert branch_head(forge, repo, f"fix{RLO}niam") is None


async def test_page_shows_messages_and_values_in_full(approval_server, repo):  # noqa: F811
    message = "Update the README\n\n" + "\n".join(
        f"Paragraph {n}: " + "why this change matters " * 8 for n in range(5)
    )
    args = {
        "full_name": repo,
        "branch": "main",
        "message": message,
        "files": [{"path": "README.md", "content": README.replace("line 3\n", "line three\n")}],
    }
    with approval_server() as served:
        visit = await page_for(served, "commit_files", args)
    assert visit.status == 200
    text = " ".join(visit.text.split())
    assert " ".join(message.split()) in text  # every line, never cut
    assert "characters)" not in visit.text
    assert any("README.md" in f and "+1" in f and "−1" in f for f in visit.files)
    assert "-line 3" in visit.text and "+line three" in visit.text  # the rendered diff


async def test_section_edit_shows_line_counts_and_diff(approval_server, repo):  # noqa: F811
    args = {
        "full_name": repo,
        "branch": "main",
        "path": "README.md",
        "message": "Rewrite lines 4-5",
        "sections": [{"start_line": 5, "end_line": 6, "new_text": "four\nfive\nfive and a half\n"}],
    }
    with approval_server() as served:
        visit = await page_for(served, "update_file_sections_and_commit", args)
    assert any("README.md" in f and "+3" in f and "−2" in f for f in visit.files), visit.files
    assert "-line 4" in visit.text and "+five and a half" in visit.text


async def test_text_from_github_is_shown_with_hidden_characters_visible(
    approval_server,  # noqa: F811
    forge,
    repo,
):
    sneaky = f"Harmless {RLO}hs.rood{RLO}"
    forge_put_file(forge, repo, TOPIC, "feature.txt", "f\n", f"Add feature {RLO}gnikcah")
    with approval_server(protected_branches="release/*") as served:
        async with http_client(served.url, TOKEN_A) as model:
            is_error, pr = await call_tool(
                model,
                "create_pull_request",
                {"full_name": repo, "head": TOPIC, "base": PROTECTED, "title": sneaky},
            )
            assert not is_error, pr
        visit = await page_for(served, "merge_pull_request", {"full_name": repo, "number": 1})
    assert RLO not in visit.text
    assert "Harmless ⟨U+202E⟩hs.rood⟨U+202E⟩" in visit.text  # the PR title, from GitHub
    assert "Add feature ⟨U+202E⟩gnikcah" in visit.text  # the commit message, from GitHub
    assert branch_head(forge, repo, TOPIC) in visit.text  # the head being approved


async def test_form_prompt_shows_hidden_characters(make_runtime, forge, repo):
    forge_put_file(forge, repo, TOPIC, "feature.txt", "f\n", f"Feature {RLO}txt.exe")
    human = Human("deny")
    rt = make_runtime(protected_branches="release/*")
    async with Client(build_mcp(rt), elicitation_handler=human, mode="legacy") as client:
        is_error, pr = await call_tool(
            client,
            "create_pull_request",
            {"full_name": repo, "head": TOPIC, "base": PROTECTED, "title": "ship"},
        )
        assert not is_error, pr
        merge = {"full_name": repo, "number": pr["number"]}
        is_error, payload = await call_tool(client, "merge_pull_request", merge)
        assert is_error and error_code(payload) == "write_not_allowed"
    prompt = human.prompts[0].message
    assert RLO not in prompt and "Feature ⟨U+202E⟩txt.exe" in prompt
    assert branch_head(forge, repo, TOPIC) in prompt


async def test_look_alike_path_gets_a_warning(approval_server, repo):  # noqa: F811
    lookalike = "R\u0415ADME.md"  # a Cyrillic Е
    args = {
        "full_name": repo,
        "branch": "main",
        "message": "docs",
        "files": [
            {"path": lookalike, "content": "x\n"},
            {"path": "\u0455\u0441\u043e\u0440\u0435.md", "content": "y\n"},  # all Cyrillic
        ],
    }
    with approval_server() as served:
        visit = await page_for(served, "commit_files", args)
    assert "Look-alike names" in visit.text
    assert "mixes writing systems" in visit.text
    assert "reads as 'scope.md'" in visit.text
    assert "looks like the existing path 'README.md'" in visit.text
