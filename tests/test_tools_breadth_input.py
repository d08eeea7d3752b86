"""Hostile arguments to the releases, labels, people, stars and gists tools get a clear
structured error before any request reaches the forge (its request log stays empty)."""

from __future__ import annotations

import pytest

from tests.conftest import DEMO_REPO, call_tool, mcp_client, settled_requests

BAD_CALLS = [
    ("get_release", {"full_name": DEMO_REPO, "tag": "../../../user"}),
    ("get_release", {"full_name": DEMO_REPO, "release_id": 0}),
    ("get_tag", {"full_name": DEMO_REPO, "tag": "v1\n"}),
    ("get_tag", {"full_name": DEMO_REPO, "tag": "v1..2"}),
    ("draft_release", {"full_name": DEMO_REPO, "tag": "-rf"}),
    ("draft_release", {"full_name": DEMO_REPO, "tag": "v1", "name": ""}),
    ("update_release", {"full_name": DEMO_REPO, "release_id": -5, "body": "x"}),
    ("get_label", {"full_name": DEMO_REPO, "name": ""}),
    ("create_label", {"full_name": DEMO_REPO, "name": "x", "color": "#12345G"}),
    ("create_label", {"full_name": DEMO_REPO, "name": "x" * 101}),
    ("list_team_members", {"org": "../octo-org", "team": "maintainers"}),
    ("list_team_members", {"org": "octo-org", "team": "a/../../user"}),
    ("get_gist", {"gist_id": "../../user"}),
    ("update_gist", {"gist_id": "abc", "files": {"../etc/passwd": "x"}}),
    ("create_gist", {"files": {}}),
    ("star_repository", {"full_name": "../../user/starred"}),
    ("list_repository_collaborators", {"full_name": DEMO_REPO, "permission": "root"}),
]


@pytest.mark.parametrize(
    ("tool", "args"), BAD_CALLS, ids=[f"{t}-{i}" for i, (t, _) in enumerate(BAD_CALLS)]
)
async def test_bad_input_is_refused_before_any_request(make_runtime, forge, tool, args):
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, payload = await call_tool(client, tool, args)
        sent = settled_requests(forge)
    assert is_error, payload
    assert payload["error"]["code"] == "invalid_input" and payload["error"]["message"]
    assert sent == []
