"""Renamed and transferred repositories: the forge answers 301/307 as GitHub does, the
client follows reads on the API host only, and reports the move."""

from __future__ import annotations

import httpx2 as httpx

from tests.conftest import call_tool, error_code, mcp_client, settled_requests


def _seed(forge, full_name: str) -> None:
    forge.seed_repo(full_name, {"README.md": "# moved\n", "src/a.py": "A = 1\n"})


def test_forge_answers_like_github(forge, forge_token):
    _seed(forge, "octo-org/rename-wire")
    forge.rename_repo("octo-org/rename-wire", "rename-wire-2")
    auth = {"Authorization": f"Bearer {forge_token}"}
    with httpx.Client(base_url=forge.base_url, headers=auth) as http:
        old = http.get("/repos/octo-org/rename-wire/contents/README.md")
        assert old.status_code == 301
        assert old.json()["message"] == "Moved Permanently"
        assert old.headers["location"] == old.json()["url"]
        assert "/repositories/" in old.headers["location"]
        assert old.headers["location"].endswith("/contents/README.md")
        moved = http.get(old.headers["location"])
        assert moved.status_code == 200 and moved.json()["path"] == "README.md"
        write = http.post("/repos/octo-org/rename-wire/issues", json={"title": "x"})
        assert write.status_code == 307
        by_id = http.get(old.headers["location"].split("/contents")[0])
        assert by_id.json()["full_name"] == "octo-org/rename-wire-2"


async def test_get_repository_reports_the_rename(forge, make_runtime):
    _seed(forge, "octo-org/rename-me")
    forge.rename_repo("octo-org/rename-me", "renamed")
    async with mcp_client(make_runtime()) as client:
        is_error, repo = await call_tool(
            client, "get_repository", {"full_name": "octo-org/rename-me"}
        )
        assert not is_error, repo
        assert repo["full_name"] == "octo-org/renamed"
        assert repo["moved_to"] == "octo-org/renamed"
        is_error, same = await call_tool(
            client, "get_repository", {"full_name": "octo-org/renamed"}
        )
        assert not is_error and "moved_to" not in same


async def test_transferred_repository_reads_follow(forge, make_runtime):
    _seed(forge, "octo-org/transfer-me")
    forge.transfer_repo("octo-org/transfer-me", "octocat")
    async with mcp_client(make_runtime()) as client:
        is_error, repo = await call_tool(
            client, "get_repository", {"full_name": "octo-org/transfer-me"}
        )
        assert not is_error and repo["moved_to"] == "octocat/transfer-me"
        is_error, file = await call_tool(
            client,
            "get_file_contents",
            {"full_name": "octo-org/transfer-me", "path": "src/a.py", "ref": "main"},
        )
        assert not is_error, file
        assert file["content"] == "A = 1\n"


async def test_a_write_to_the_old_name_is_not_replayed(forge, make_runtime):
    _seed(forge, "octo-org/rename-write")
    forge.rename_repo("octo-org/rename-write", "rename-write-2")
    head = _branch_head(forge, "octo-org/rename-write-2", "main")
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(
            client,
            "create_branch",
            {"full_name": "octo-org/rename-write", "branch": "feature/moved", "from_ref": "main"},
        )
    assert is_error, result
    assert error_code(result) in ("not_found", "upstream_error")
    assert "moved" in result["error"]["message"]
    assert _branch_head(forge, "octo-org/rename-write-2", "feature/moved") is None
    assert _branch_head(forge, "octo-org/rename-write-2", "main") == head
    posts = [
        r for r in settled_requests(forge) if r["method"] == "POST" and "rename-write" in r["path"]
    ]
    assert all("/repositories/" not in r["path"] for r in posts)


async def test_redirect_to_another_host_is_refused_without_sending_the_token(forge, make_runtime):
    _seed(forge, "octo-org/redirect-away")
    # Same forge, other host name: if the client followed, the forge log would show it.
    elsewhere = forge.base_url.replace("127.0.0.1", "localhost") + "/elsewhere/probe"
    forge.add_fault(
        path="/repos/octo-org/redirect-away$",
        method="GET",
        status=302,
        headers={"location": elsewhere},
        body={"message": "Found"},
        times=None,
    )
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "get_repository", {"full_name": "octo-org/redirect-away"}
        )
    assert is_error and error_code(result) == "upstream_error"
    assert "another host" in result["error"]["message"]
    assert not [r for r in settled_requests(forge) if "/elsewhere/" in r["path"]]


async def test_unexpected_3xx_is_a_clear_error_not_a_crash(forge, make_runtime):
    _seed(forge, "octo-org/odd-status")
    forge.add_fault(
        path="/repos/octo-org/odd-status$",
        method="GET",
        status=300,
        body={"message": "Multiple Choices"},
        times=None,
    )
    async with mcp_client(make_runtime()) as client:
        is_error, result = await call_tool(
            client, "get_repository", {"full_name": "octo-org/odd-status"}
        )
    assert is_error and error_code(result) == "upstream_error"
    assert "300" in result["error"]["message"]


def _branch_head(forge, full_name: str, branch: str) -> str | None:
    owner, name = full_name.split("/")
    return forge.state.repo(owner, name).git.read_ref(f"refs/heads/{branch}")
