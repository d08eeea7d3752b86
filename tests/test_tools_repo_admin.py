"""create_repository, fork_repository and delete_repository through a real MCP client
against the forge. Evidence is the forge's state: which repositories exist, their
visibility, their refs and whether the bare repository is still on disk; and the request
log (nothing sent when a call is refused). Requests and responses are checked against
GitHub's OpenAPI description."""

from __future__ import annotations

import uuid

import pytest

from tests.conftest import call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests


def unique(prefix: str = "made") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


def forge_repo(forge, full_name: str):
    return forge.state.repo(*full_name.split("/"))


def heads(forge, full_name: str) -> dict[str, str]:
    repo = forge_repo(forge, full_name)
    return {ref: sha for ref, sha, _ in repo.git.list_refs("refs/")}


def posts(forge) -> list[dict]:
    return [r for r in write_requests(forge) if r["method"] in ("POST", "DELETE")]


# --- create ----------------------------------------------------------------------------------


async def test_create_is_private_by_default_and_needs_approval(make_runtime, forge):
    name = unique()
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "create_repository", {"name": name})
        refused_writes = posts(forge)
    assert error_code(refused) == "write_not_allowed" and refused_writes == []
    assert forge_repo(forge, f"octocat/{name}") is None

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, made = await call_tool(
            client, "create_repository", {"name": name, "description": "Scratch space"}
        )
    record = forge_repo(forge, f"octocat/{name}")
    assert record is not None and record.private is True and record.description == "Scratch space"
    assert heads(forge, f"octocat/{name}") == {}  # empty: no auto_init
    assert made["full_name"] == f"octocat/{name}" and made["private"] is True
    records = [r for r in forge.responses() if r["path"] == "/user/repos"]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_create_in_an_organisation_public_with_a_readme(make_runtime, forge):
    name = unique()
    forge.add_org_member("repo-admin-org", "octocat", "member")
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, made = await call_tool(
            client,
            "create_repository",
            {"name": name, "owner": "repo-admin-org", "private": False, "auto_init": True},
        )
        _, again = await call_tool(
            client, "create_repository", {"name": name, "owner": "repo-admin-org"}
        )
    full = f"repo-admin-org/{name}"
    record = forge_repo(forge, full)
    assert record is not None and record.private is False and made["private"] is False
    assert list(heads(forge, full)) == ["refs/heads/main"]
    assert record.git.read_blob(record.git.entry_at("main", "README.md").sha).startswith(b"# ")
    assert error_code(again) == "unprocessable"  # the name is taken: GitHub's 422
    records = [r for r in forge.responses() if r["path"] == "/orgs/repo-admin-org/repos"]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []


async def test_create_refuses_names_off_the_allow_list_and_hostile_names(make_runtime, forge):
    forge.add_org_member("repo-admin-org", "octocat", "member")
    rt = make_runtime(auto_approve=True, repo_allowlist="repo-admin-org/*")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, personal = await call_tool(client, "create_repository", {"name": unique()})
        _, other_org = await call_tool(
            client, "create_repository", {"name": unique(), "owner": "octo-org"}
        )
        hostile = [
            await call_tool(client, "create_repository", args)
            for args in (
                {"name": "../escape"},
                {"name": "a/b", "owner": "repo-admin-org"},
                {"name": ".", "owner": "repo-admin-org"},
                {"name": "..", "owner": "repo-admin-org"},
                {"name": "x.git", "owner": "repo-admin-org"},
                {"name": "has space", "owner": "repo-admin-org"},
                {"name": "naïve", "owner": "repo-admin-org"},
                {"name": "x" * 101, "owner": "repo-admin-org"},
                {"name": "ok", "owner": "-bad-"},
                {"name": "ok", "owner": "repo-admin-org/../octo-org"},
            )
        ]
        sent = posts(forge)
    assert error_code(personal) == "repo_not_allowed"
    assert error_code(other_org) == "repo_not_allowed"
    assert all(is_error for is_error, _ in hostile), hostile
    assert sent == []


async def test_a_non_member_cannot_create_in_an_organisation(make_runtime, forge):
    forge.add_user("repo-admin-outsider")
    token = forge.create_token(login="repo-admin-outsider", user_roles=True)
    name = unique()
    rt = make_runtime(auto_approve=True, github_token=token)
    async with mcp_client(rt) as client:
        _, refused = await call_tool(
            client, "create_repository", {"name": name, "owner": "octo-org"}
        )
    assert error_code(refused) == "permission_denied"
    assert forge_repo(forge, f"octo-org/{name}") is None


# --- fork ------------------------------------------------------------------------------------


def source_repo(forge) -> str:
    repo = new_repo(forge, prefix="fork-src", branches={"feature": {"f.txt": "x\n"}})
    forge_repo(forge, repo).git.run("tag", "v1", "main")
    return repo


async def test_fork_copies_the_default_branch_and_answers_the_same_fork_again(make_runtime, forge):
    source = source_repo(forge)
    name = source.split("/")[1]
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, fork = await call_tool(client, "fork_repository", {"full_name": source})
        count = len(forge.state.all_repos())
        _, again = await call_tool(client, "fork_repository", {"full_name": source})
        after = len(forge.state.all_repos())
    mine = f"octocat/{name}"
    assert fork["full_name"] == mine and fork["parent"] == source
    assert fork["already_existed"] is False and again["already_existed"] is True
    assert count == after  # the second call made nothing
    assert heads(forge, mine) == {"refs/heads/main": heads(forge, source)["refs/heads/main"]}
    records = [r for r in forge.responses() if r["path"].endswith("/forks")]
    assert records and validate_records(records) == [] and validate_request_bodies(records) == []
    assert forge_repo(forge, mine).extra.get("fork_parent") == forge_repo(forge, source).id


async def test_forking_an_empty_repository_is_refused_and_leaves_no_fork(make_runtime, forge):
    # the organisation first: a repository made under an unknown owner makes it a user,
    # and the later tests' forks into the organisation would then find no organisation
    forge.add_org_member("repo-admin-org", "octocat", "member")
    empty = f"repo-admin-org/{unique('empty')}"
    forge.state.create_repo(empty, private=True)  # as create_repository makes it: no commits
    before = {r.full_name for r in forge.state.all_repos()}
    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, refused = await call_tool(client, "fork_repository", {"full_name": empty})
    assert error_code(refused) == "permission_denied", refused
    assert "no Git content" in refused["error"]["message"]
    assert {r.full_name for r in forge.state.all_repos()} == before  # nothing half-made
    (answer,) = [r for r in forge.responses() if r["path"].endswith("/forks")]
    assert answer["status"] == 403 and validate_records([answer]) == []


async def test_fork_to_an_organisation_under_a_new_name_with_every_branch(make_runtime, forge):
    source = source_repo(forge)
    forge.add_org_member("repo-admin-org", "octocat", "member")
    name = unique("fork")
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        _, fork = await call_tool(
            client,
            "fork_repository",
            {
                "full_name": source,
                "organization": "repo-admin-org",
                "name": name,
                "default_branch_only": False,
            },
        )
    full = f"repo-admin-org/{name}"
    assert fork["full_name"] == full, fork
    assert heads(forge, full) == heads(forge, source)  # main, feature and the v1 tag


async def test_fork_refuses_a_destination_off_the_allow_list_or_taken(make_runtime, forge):
    source = source_repo(forge)
    name = source.split("/")[1]
    forge.seed_repo(f"repo-admin-org/{name}", {"README.md": "not a fork\n"})
    forge.add_org_member("repo-admin-org", "octocat", "member")
    rt = make_runtime(auto_approve=True, repo_allowlist="fork-src/*,repo-admin-org/*")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, outside = await call_tool(client, "fork_repository", {"full_name": source})
        _, taken = await call_tool(
            client, "fork_repository", {"full_name": source, "organization": "repo-admin-org"}
        )
        _, hostile = await call_tool(
            client, "fork_repository", {"full_name": source, "name": "../../x"}
        )
        sent = posts(forge)
    assert error_code(outside) == "repo_not_allowed"
    assert error_code(taken) == "conflict"
    assert hostile["error"]["code"] in ("invalid_input", "validation_error")
    assert sent == [] and forge_repo(forge, f"octocat/{name}") is None


# --- delete ----------------------------------------------------------------------------------


async def test_delete_is_off_unless_the_operator_allows_it(make_runtime, forge):
    repo = new_repo(forge, prefix="delete-org")
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "delete_repository", {"full_name": repo})
        sent = settled_requests(forge)
    assert error_code(refused) == "write_not_allowed"
    assert refused["error"]["reason"] == "repo_delete_disabled"
    assert "GITHUB_MCP_ALLOW_REPO_DELETE" in refused["error"]["hint"]
    assert sent == [] and forge_repo(forge, repo) is not None


async def test_delete_needs_approval_then_removes_the_repository(make_runtime, forge):
    repo = new_repo(forge, prefix="delete-org")
    path = forge_repo(forge, repo).git.path
    async with mcp_client(make_runtime(allow_repo_delete=True)) as client:
        forge.clear_requests()
        _, unapproved = await call_tool(client, "delete_repository", {"full_name": repo})
        unapproved_deletes = [r for r in write_requests(forge) if r["method"] == "DELETE"]
    assert error_code(unapproved) == "write_not_allowed" and unapproved_deletes == []
    assert forge_repo(forge, repo) is not None

    forge.clear_responses()
    async with mcp_client(make_runtime(allow_repo_delete=True, auto_approve=True)) as client:
        _, deleted = await call_tool(client, "delete_repository", {"full_name": repo})
        _, again = await call_tool(client, "delete_repository", {"full_name": repo})
    assert deleted == {"full_name": repo, "deleted": True, "verified": True}
    assert forge_repo(forge, repo) is None and not path.exists()
    assert error_code(again) == "not_found"
    records = [r for r in forge.responses() if r["method"] == "DELETE"]
    assert records and validate_records(records) == []


@pytest.mark.parametrize("target", ["octo-org/demo-app", "../../etc", "delete-org/x/../y"])
async def test_delete_refuses_repositories_off_the_allow_list(make_runtime, forge, target):
    rt = make_runtime(allow_repo_delete=True, auto_approve=True, repo_allowlist="delete-org/*")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, refused = await call_tool(client, "delete_repository", {"full_name": target})
        sent = [r for r in write_requests(forge) if r["method"] == "DELETE"]
    assert refused["error"]["code"] in ("repo_not_allowed", "invalid_input", "validation_error")
    assert sent == [] and forge_repo(forge, "octo-org/demo-app") is not None


async def test_delete_needs_admin_before_anyone_is_asked(make_runtime, forge):
    repo = new_repo(forge, prefix="delete-org")
    forge.add_user("delete-writer")
    forge.add_collaborator(repo, "delete-writer", "write")
    token = forge.create_token(login="delete-writer", user_roles=True)
    rt = make_runtime(allow_repo_delete=True, auto_approve=True, github_token=token)
    async with mcp_client(rt) as client:
        _, refused = await call_tool(client, "delete_repository", {"full_name": repo})
    assert error_code(refused) == "forbidden" and forge_repo(forge, repo) is not None


# --- demo data -------------------------------------------------------------------------------


async def test_the_demo_has_a_fork_a_closed_pull_and_a_scratch_repository(make_runtime, forge):
    demo = forge.state.extensions["demo_repos"]
    async with mcp_client(make_runtime()) as client:
        _, fork = await call_tool(client, "get_repository", {"full_name": demo["fork"]})
        _, pulls = await call_tool(
            client, "list_pull_requests", {"full_name": "octo-org/demo-app", "state": "closed"}
        )
        _, reacted = await call_tool(
            client,
            "list_reactions",
            {
                "full_name": "octo-org/demo-app",
                "on": "review_comment",
                "subject_id": demo["review_comment_reacted"],
            },
        )
    assert fork["fork"] is True and demo["fork"] == "bob/demo-app"
    closed = {p["number"]: p for p in pulls["pull_requests"]}
    assert demo["closed_pull"] in closed and closed[demo["closed_pull"]]["head"] == "docs/typo"
    assert reacted == {"by_content": {"rocket": ["alice"]}}
    scratch = forge_repo(forge, demo["scratch"])
    assert scratch is not None and scratch.private is True


# --- the cross-visibility guard --------------------------------------------------------------


async def test_after_a_private_read_a_public_repository_or_fork_is_refused(make_runtime, forge):
    vault = new_repo(forge, prefix="xv-repo-admin", files={"secret.txt": "s3cr3t\n"})
    forge_repo(forge, vault).private = True
    public_source = source_repo(forge)
    name = unique()
    rt = make_runtime(cross_visibility="deny", auto_approve=True)
    async with mcp_client(rt) as client:
        _, read = await call_tool(
            client, "get_file_contents", {"full_name": vault, "path": "secret.txt"}
        )
        assert "error" not in read, read
        forge.clear_requests()
        _, public = await call_tool(client, "create_repository", {"name": name, "private": False})
        _, fork = await call_tool(client, "fork_repository", {"full_name": public_source})
        sent = posts(forge)
        _, private = await call_tool(client, "create_repository", {"name": name})
    assert (
        error_code(public) == "write_not_allowed"
        and public["error"]["reason"] == "cross_visibility"
    )
    assert error_code(fork) == "write_not_allowed" and fork["error"]["reason"] == "cross_visibility"
    assert sent == []
    assert private["private"] is True  # a private repository is not a public place
    assert forge_repo(forge, f"octocat/{name}").private is True
