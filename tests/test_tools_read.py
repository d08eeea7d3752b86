"""The read tools end to end: tree, file contents, slices, batches, history, caching,
driven through a real MCP client against the sandbox forge."""

from __future__ import annotations

import base64
import json
import subprocess
from typing import Any

import httpx2 as httpx
import pytest

from sandbox_forge import Forge
from sandbox_forge.admin.seed_collab import set_branch_protection
from tests.conftest import call_tool, error_code, mcp_client, settled_requests

REPO = "reads-org/tree-repo"
BIG = "x" * (210 * 1024)  # above the 200 KiB gate
EXACT = "y" * (200 * 1024)  # exactly at the gate: kept (the gate is "strictly greater")
MULTIBYTE = "é" * 100  # 200 bytes, every character two bytes
BINARY = b"\x00\x01\x02\x03 binary payload \xff\xfe"
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"

FILES: dict[str, str | bytes] = {
    "README.md": "# tree repo\n",
    ".gitignore": "*.log\n!keep.log\nbuild/\n!build/rescued.txt\n",
    "keep.log": "kept by negation\n",
    "debug.log": "ignored\n",
    "build/out.txt": "build output\n",
    "build/rescued.txt": "cannot be re-included: its directory is excluded\n",
    "node_modules/pkg/index.js": "module.exports = 1;\n",
    "web/node_modules/dep/index.js": "nested node_modules\n",
    "package-lock.json": "{}\n",
    "logo.png": PNG,
    "big.txt": BIG,
    "exact.txt": EXACT,
    "utf8.txt": MULTIBYTE,
    "blob.dat": BINARY,
    "docs/.gitignore": "*.tmp\n!important.log\n",
    "docs/guide.md": "guide\n",
    "docs/draft.tmp": "draft\n",
    "docs/important.log": "re-included by docs/.gitignore\n",
    "docs/inner/notes.tmp": "ignored by the parent's .gitignore\n",
    "docs/inner/trace.log": "ignored by the root .gitignore\n",
    "docs/inner/page.txt": "page\n",
    "docs-a.txt": "sorts before docs/ by code point\n",
    "docs.txt": "sorts between docs-a.txt and docs/\n",
    "B.txt": "upper case sorts first\n",
    "_under.txt": "underscore sorts between upper and lower case\n",
    "a.txt": "lower case\n",
    "é.txt": "non-ASCII sorts last\n",
    "lines.txt": "".join(f"line {i}\n" for i in range(1, 11)),
}


# --- helpers -----------------------------------------------------------------------------


def git_hash(data: str | bytes) -> str:
    raw = data.encode() if isinstance(data, str) else data
    out = subprocess.run(
        ["git", "hash-object", "--stdin"], input=raw, capture_output=True, check=True
    )
    return out.stdout.decode().strip()


def paths(items: list[dict[str, Any]]) -> list[str]:
    return [i["path"] for i in items]


def by_path(items: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {i["path"]: i for i in items}


def forge_put_file(
    forge: Forge, token: str, full_name: str, path: str, text: str, branch: str = "main"
) -> dict[str, Any]:
    """Write a file straight through the forge's Contents API, behind our server's back."""
    response = httpx.put(
        f"{forge.base_url}/repos/{full_name}/contents/{path}",
        headers={"Authorization": f"Bearer {token}"},
        json={
            "message": f"add {path}",
            "branch": branch,
            "content": base64.b64encode(text.encode()).decode(),
        },
    )
    assert response.status_code in (200, 201), response.text
    return response.json()


@pytest.fixture(scope="module")
def tree_repo(forge):
    forge.seed_repo(REPO, FILES, branches={"feature": {"README.md": "# tree repo, changed\n"}})
    return REPO


# --- list_repository_tree ------------------------------------------------------------------


async def test_tree_four_layers_with_reasons_and_patterns(make_runtime, forge, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, tree = await call_tool(client, "list_repository_tree", {"full_name": REPO})
    assert not is_error, tree
    branches = {
        b["name"]: b["commit"]["sha"]
        for b in httpx.get(f"{forge.base_url}/repos/{REPO}/branches").json()
    }
    assert tree["resolved_sha"] == branches["main"]
    assert tree["ref"] == "main"  # the default branch when no ref is given
    kept = set(paths(tree["file_tree"]))
    excluded = by_path(tree["excluded"])

    # platform
    assert excluded["logo.png"]["reason"] == "platform"
    assert excluded["logo.png"]["pattern"] == "*.png"
    assert excluded["package-lock.json"]["reason"] == "platform"
    assert excluded["node_modules/pkg/index.js"]["reason"] == "platform"
    assert excluded["web/node_modules/dep/index.js"]["reason"] == "platform"
    # gitignore, with the file that said so
    assert excluded["debug.log"] == {
        "path": "debug.log",
        "reason": "gitignore",
        "size": len("ignored\n"),
        "pattern": "*.log",
        "source": ".gitignore",
    }
    assert excluded["docs/draft.tmp"]["source"] == "docs/.gitignore"
    assert excluded["build/out.txt"]["pattern"] == "build/"
    # negation works for files, but never re-includes a file under an excluded directory
    assert "keep.log" in kept
    assert "docs/important.log" in kept
    assert excluded["build/rescued.txt"]["reason"] == "gitignore"
    # size: strictly above 200 KiB
    assert excluded["big.txt"] == {"path": "big.txt", "reason": "size", "size": len(BIG)}
    assert "exact.txt" in kept
    # every blob is either kept or excluded, exactly once
    assert kept.isdisjoint(excluded)
    assert kept | set(excluded) == set(FILES)
    assert tree["counts"] == {
        "total": len(FILES),
        "kept": len(kept),
        "platform": 4,
        "gitignore": 6,
        "user": 0,
        "size": 1,
    }
    assert tree["total"] == len(kept)
    # sizes and blob shas are the real ones
    entry = by_path(tree["file_tree"])["lines.txt"]
    assert entry["sha"] == git_hash(FILES["lines.txt"])
    assert entry["size"] == len(FILES["lines.txt"])


async def test_tree_sorted_by_code_point(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, tree = await call_tool(client, "list_repository_tree", {"full_name": REPO})
    listed = paths(tree["file_tree"])
    assert listed == sorted(listed)
    assert paths(tree["excluded"]) == sorted(paths(tree["excluded"]))
    order = [p for p in listed if p in ("B.txt", "_under.txt", "a.txt", "é.txt")]
    assert order == ["B.txt", "_under.txt", "a.txt", "é.txt"]
    order = [p for p in listed if p.startswith("docs")]
    assert order.index("docs-a.txt") < order.index("docs.txt") < order.index("docs/guide.md")


async def test_tree_subtree_applies_parent_gitignores(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, tree = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "path": "docs/inner"}
        )
    assert not is_error, tree
    assert tree["path"] == "docs/inner"
    assert paths(tree["file_tree"]) == ["docs/inner/page.txt"]
    excluded = by_path(tree["excluded"])
    # docs/.gitignore sits in a parent of the requested subtree, the root one higher up
    assert excluded["docs/inner/notes.tmp"]["source"] == "docs/.gitignore"
    assert excluded["docs/inner/trace.log"]["source"] == ".gitignore"
    assert set(excluded) == {"docs/inner/notes.tmp", "docs/inner/trace.log"}


async def test_tree_user_patterns_come_after_platform_and_gitignore(make_runtime, tree_repo):
    rt = make_runtime()
    args = {"full_name": REPO, "ignore_patterns": ["*.md", "*.png", "*.log", "big.txt"]}
    async with mcp_client(rt) as client:
        is_error, tree = await call_tool(client, "list_repository_tree", args)
    assert not is_error, tree
    excluded = by_path(tree["excluded"])
    assert excluded["README.md"]["reason"] == "user"
    assert excluded["README.md"]["pattern"] == "*.md"
    assert excluded["docs/guide.md"]["reason"] == "user"
    assert excluded["logo.png"]["reason"] == "platform"  # the first layer decides
    assert excluded["debug.log"]["reason"] == "gitignore"
    assert excluded["keep.log"]["reason"] == "user"  # kept by .gitignore, then the user layer
    assert excluded["big.txt"]["reason"] == "user"  # user comes before size
    assert tree["counts"]["user"] == 5


async def test_tree_user_pattern_limits(make_runtime, forge, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        for patterns in (["*.x"] * 101, ["a" * 1025], ["ok", "two\nlines"]):
            forge.clear_requests()
            is_error, payload = await call_tool(
                client, "list_repository_tree", {"full_name": REPO, "ignore_patterns": patterns}
            )
            assert is_error and error_code(payload) == "invalid_input", payload
            assert settled_requests(forge) == [], patterns
        is_error, payload = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "ignore_patterns": ["*.x"] * 100}
        )
        assert not is_error, payload


async def test_tree_force_bypasses_size_gate_only(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, tree = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "force": True}
        )
    kept = set(paths(tree["file_tree"]))
    assert "big.txt" in kept
    assert tree["counts"]["size"] == 0
    assert "logo.png" not in kept and "debug.log" not in kept


async def test_tree_limit_and_cursor_page_the_whole_listing(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, full = await call_tool(client, "list_repository_tree", {"full_name": REPO})
        files: list[str] = []
        excluded: list[str] = []
        cursor = None
        pages = 0
        while True:
            args: dict[str, Any] = {"full_name": REPO, "limit": 4}
            if cursor:
                args["cursor"] = cursor
            is_error, page = await call_tool(client, "list_repository_tree", args)
            assert not is_error, page
            assert len(page["file_tree"]) <= 4
            assert page["total"] == full["total"]
            files += paths(page["file_tree"])
            excluded += paths(page["excluded"])
            pages += 1
            cursor = page.get("next_cursor")
            if not cursor:
                break
        is_error, bad = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "cursor": "not-a-cursor"}
        )
    assert files == paths(full["file_tree"])
    assert excluded == paths(full["excluded"])
    assert pages == -(-full["total"] // 4)
    assert error_code(bad) == "invalid_input"


async def test_tree_non_recursive_lists_one_level_with_directories(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, tree = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "recursive": False}
        )
        _, docs = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "path": "docs", "recursive": False}
        )
    listed = by_path(tree["file_tree"])
    assert tree["recursive"] is False
    assert listed["docs"]["type"] == "tree"
    assert "README.md" in listed and "type" not in listed["README.md"]
    assert not any(p.count("/") for p in listed)  # one level only
    excluded = by_path(tree["excluded"])
    assert excluded["node_modules"]["reason"] == "platform"
    assert excluded["build"]["reason"] == "gitignore"
    assert set(paths(docs["file_tree"])) == {
        "docs/.gitignore",
        "docs/guide.md",
        "docs/important.log",
        "docs/inner",
    }


async def test_tree_errors(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, missing_dir = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "path": "no/such/dir"}
        )
        _, a_file = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "path": "README.md"}
        )
        _, missing_ref = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "ref": "no-such-branch"}
        )
        _, missing_repo = await call_tool(
            client, "list_repository_tree", {"full_name": "reads-org/nope", "ref": "main"}
        )
        _, bad_path = await call_tool(
            client, "list_repository_tree", {"full_name": REPO, "path": "../etc"}
        )
    assert error_code(missing_dir) == "not_found"
    assert error_code(a_file) == "invalid_input"
    assert error_code(missing_ref) == "not_found"
    assert error_code(missing_repo) == "not_found"
    assert error_code(bad_path) == "invalid_input"


async def test_tree_second_identical_call_is_a_cache_hit(make_runtime, forge, tree_repo):
    rt = make_runtime()
    args = {"full_name": REPO, "ref": "feature", "ignore_patterns": ["*.md"]}
    async with mcp_client(rt) as client:
        _, first = await call_tool(client, "list_repository_tree", args)
        forge.clear_requests()
        _, second = await call_tool(client, "list_repository_tree", args)
        assert settled_requests(forge) == []
        _, other_args = await call_tool(
            client, "list_repository_tree", {**args, "ignore_patterns": ["*.txt"]}
        )
    assert first["cache_hit"] is False and second["cache_hit"] is True
    assert {**first, "cache_hit": True} == second
    assert other_args["cache_hit"] is False


@pytest.fixture(scope="module")
def small_tree_forge():
    instance = Forge(tree_truncate_limit=6)
    instance.start()
    yield instance
    instance.stop()


async def test_truncated_tree_is_completed_and_reported(make_runtime, small_tree_forge):
    forge = small_tree_forge
    files = {
        f"pkg{d}/sub{s}/f{i}.txt": f"{d}{s}{i}\n"
        for d in range(3)
        for s in range(2)
        for i in range(3)
    }
    files |= {"root.txt": "r\n", ".gitignore": "*.tmp\n", "pkg1/sub0/skip.tmp": "t\n"}
    forge.seed_repo("trunc-org/big", files)
    token = forge.create_token("octocat")
    rt = make_runtime(github_api_url=forge.base_url, github_token=token)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, tree = await call_tool(
            client, "list_repository_tree", {"full_name": "trunc-org/big"}
        )
        is_error_sub, sub = await call_tool(
            client, "list_repository_tree", {"full_name": "trunc-org/big", "path": "pkg1"}
        )
    assert not is_error, tree
    truncated_answers = [
        e for e in forge.requests() if "/git/trees/" in e["path"] and "recursive" in e["query"]
    ]
    assert truncated_answers, "the forge should have been asked for recursive trees"
    assert set(paths(tree["file_tree"])) == set(files) - {"pkg1/sub0/skip.tmp"}
    assert paths(tree["excluded"]) == ["pkg1/sub0/skip.tmp"]
    assert tree["completion"]["method"] == "subtree_walk"
    assert tree["completion"]["extra_requests"] > 0
    assert not is_error_sub, sub
    assert set(paths(sub["file_tree"])) == {p for p in files if p.startswith("pkg1/")} - {
        "pkg1/sub0/skip.tmp"
    }


# --- get_file_contents -------------------------------------------------------------------


async def test_get_file_contents_text(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, read = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "lines.txt"}
        )
        _, feature = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "README.md", "ref": "feature"}
        )
    assert not is_error, read
    assert read["content"] == FILES["lines.txt"]
    assert read["encoding"] == "utf-8"
    assert read["truncated"] is False
    assert read["total_bytes"] == read["size"] == len(FILES["lines.txt"])
    assert read["sha"] == git_hash(FILES["lines.txt"])
    assert read["ref"] == "main"
    assert feature["content"] == "# tree repo, changed\n" and feature["ref"] == "feature"


@pytest.mark.parametrize("max_bytes", [1, 10, 11, 99, 199])
async def test_truncation_never_ends_mid_character(make_runtime, tree_repo, max_bytes):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, read = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "utf8.txt", "max_bytes": max_bytes},
        )
    assert not is_error, read
    data = read["content"].encode()
    assert read["truncated"] is True
    assert len(data) <= max_bytes and max_bytes - len(data) <= 1
    assert MULTIBYTE.encode().startswith(data)
    assert read["content"] == "é" * (max_bytes // 2)
    assert read["total_bytes"] == len(MULTIBYTE.encode())  # from the metadata fallback
    assert read["sha"] == git_hash(MULTIBYTE)


async def test_binary_file_is_refused_unless_allowed(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, refused = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "blob.dat"}
        )
        _, allowed = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "blob.dat", "allow_binary": True},
        )
        _, png = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "logo.png"}
        )
    assert is_error and error_code(refused) == "binary_file"
    assert refused["error"]["total_bytes"] == len(BINARY)
    assert refused["error"]["magic_hex"] == BINARY[:4].hex()
    assert allowed["encoding"] == "base64"
    assert base64.b64decode(allowed["content"]) == BINARY
    assert allowed["sha"] == git_hash(BINARY)
    assert error_code(png) == "binary_file" and png["error"]["magic_hex"] == "89504e47"


async def test_directory_is_not_a_file_and_bad_arguments(make_runtime, forge, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, directory = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "docs"}
        )
        forge.clear_requests()
        for args in (
            {"full_name": REPO, "path": "/etc/passwd"},
            {"full_name": REPO, "path": "docs/../README.md"},
            {"full_name": REPO, "path": "a\\b"},
            {"full_name": REPO, "path": "README.md", "max_bytes": 0},
            {"full_name": REPO, "path": "README.md", "max_bytes": 1024 * 1024 + 1},
            {"full_name": "not a repo", "path": "README.md"},
            {"full_name": REPO, "path": "README.md", "ref": "a..b"},
        ):
            is_error, payload = await call_tool(client, "get_file_contents", args)
            assert is_error and error_code(payload) == "invalid_input", (args, payload)
        assert settled_requests(forge) == []
    assert error_code(directory) == "not_a_file"


async def test_missing_file_is_not_cached(make_runtime, forge, forge_token):
    full_name = "reads-org/later"
    forge.seed_repo(full_name, {"README.md": "x\n"})
    rt = make_runtime(cache_ttl_seconds=0)
    args = {"full_name": full_name, "path": "docs/new.md", "ref": "main"}
    async with mcp_client(rt) as client:
        is_error, missing = await call_tool(client, "get_file_contents", args)
        assert is_error and error_code(missing) == "not_found"
        assert "docs/new.md" in missing["error"]["message"]
        forge_put_file(forge, forge_token, full_name, "docs/new.md", "now it exists\n")
        is_error, found = await call_tool(client, "get_file_contents", args)
    assert not is_error, found
    assert found["content"] == "now it exists\n"


# --- caching -------------------------------------------------------------------------------


async def test_second_identical_read_makes_no_request(make_runtime, forge, tree_repo):
    rt = make_runtime()
    args = {"full_name": REPO, "path": "lines.txt", "ref": "main"}
    async with mcp_client(rt) as client:
        _, first = await call_tool(client, "get_file_contents", args)
        forge.clear_requests()
        _, second = await call_tool(client, "get_file_contents", args)
        assert settled_requests(forge) == []
    assert first == second


async def test_after_ttl_only_304s(make_runtime, forge, tree_repo):
    rt = make_runtime(cache_ttl_seconds=0)
    args = {"full_name": REPO, "path": "lines.txt", "ref": "main"}
    async with mcp_client(rt) as client:
        _, first = await call_tool(client, "get_file_contents", args)
        forge.clear_requests()
        _, second = await call_tool(client, "get_file_contents", args)
        statuses = [e["status"] for e in settled_requests(forge)]
    assert first == second
    assert statuses and set(statuses) == {304}


async def test_invalidate_repo_cache_forces_refetch(make_runtime, forge, tree_repo):
    rt = make_runtime()
    args = {"full_name": REPO, "path": "lines.txt", "ref": "main"}
    async with mcp_client(rt) as client:
        await call_tool(client, "get_file_contents", args)
        is_error, dropped = await call_tool(client, "invalidate_repo_cache", {"full_name": REPO})
        assert not is_error and dropped["entries_removed"] > 0
        forge.clear_requests()
        _, again = await call_tool(client, "get_file_contents", args)
        refetched = settled_requests(forge)
    assert again["content"] == FILES["lines.txt"]
    # Read again from GitHub: commit and blob come back in one GraphQL request.
    assert any(e["path"] == "/graphql" and e["status"] == 200 for e in refetched)


# --- get_file_slice -----------------------------------------------------------------------


async def test_get_file_slice(make_runtime, tree_repo):
    rt = make_runtime()
    base = {"full_name": REPO, "path": "lines.txt"}
    async with mcp_client(rt) as client:
        _, middle = await call_tool(
            client, "get_file_slice", {**base, "start_line": 3, "max_lines": 4}
        )
        _, numbered = await call_tool(
            client,
            "get_file_slice",
            {**base, "start_line": 8, "max_lines": 5, "line_numbers": True},
        )
        _, beyond = await call_tool(client, "get_file_slice", {**base, "start_line": 11})
        _, zero = await call_tool(client, "get_file_slice", {**base, "start_line": 0})
        _, missing = await call_tool(
            client, "get_file_slice", {"full_name": REPO, "path": "nope.txt"}
        )
    assert middle["text"] == "line 3\nline 4\nline 5\nline 6\n"
    assert (middle["start_line"], middle["end_line"]) == (3, 6)
    assert middle["total_lines"] == 10 and middle["next_start_line"] == 7
    assert middle["sha"] == git_hash(FILES["lines.txt"])
    assert numbered["text"] == " 8\tline 8\n 9\tline 9\n10\tline 10\n"
    assert numbered["end_line"] == 10 and "next_start_line" not in numbered
    assert error_code(beyond) == "invalid_input"
    assert beyond["error"]["total_lines"] == 10
    assert error_code(zero) == "invalid_input"
    assert error_code(missing) == "not_found"


# --- fetch_files -------------------------------------------------------------------------


@pytest.fixture(scope="module")
def many_repo(forge):
    full_name = "reads-org/many"
    forge.seed_repo(
        full_name, {f"src/f{i:02d}.txt": f"file {i}\n" for i in range(31)} | {"bin.dat": BINARY}
    )
    return full_name


async def test_fetch_files_30_paths(make_runtime, forge, many_repo):
    rt = make_runtime()
    wanted = [f"src/f{i:02d}.txt" for i in range(30)]
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, batch = await call_tool(
            client, "fetch_files", {"full_name": many_repo, "paths": wanted}
        )
    assert not is_error, batch
    assert batch["ok"] == 30 and batch["failed"] == 0
    assert [f["path"] for f in batch["files"]] == wanted  # in the order asked
    assert [f["content"] for f in batch["files"]] == [f"file {i}\n" for i in range(30)]
    # One GraphQL request reads the default branch's commit and all 30 blobs.
    assert [e["path"] for e in settled_requests(forge)] == ["/graphql"]


async def test_fetch_files_31_paths_refused_without_requests(make_runtime, forge, many_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, payload = await call_tool(
            client,
            "fetch_files",
            {"full_name": many_repo, "paths": [f"src/f{i:02d}.txt" for i in range(31)]},
        )
        _, bad_path = await call_tool(
            client, "fetch_files", {"full_name": many_repo, "paths": ["src/f00.txt", "../x"]}
        )
        _, empty = await call_tool(client, "fetch_files", {"full_name": many_repo, "paths": []})
        assert settled_requests(forge) == []
    assert is_error and error_code(payload) == "invalid_input"
    assert error_code(bad_path) == "invalid_input"
    assert error_code(empty) == "invalid_input"


async def test_fetch_files_partial_failure(make_runtime, many_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, batch = await call_tool(
            client,
            "fetch_files",
            {
                "full_name": many_repo,
                "paths": ["src/f01.txt", "src/missing.txt", "bin.dat", "src", "src/f02.txt"],
            },
        )
    assert not is_error, batch
    assert batch["ok"] == 2 and batch["failed"] == 3
    files = by_path(batch["files"])
    assert files["src/f01.txt"]["content"] == "file 1\n"
    assert files["src/f02.txt"]["content"] == "file 2\n"
    assert files["src/missing.txt"]["error"]["code"] == "not_found"
    assert files["bin.dat"]["error"]["code"] == "binary_file"
    assert files["src"]["error"]["code"] == "not_a_file"


# --- repository facts and history --------------------------------------------------------


async def test_get_repository(make_runtime, tree_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, repo = await call_tool(client, "get_repository", {"full_name": REPO})
        _, missing = await call_tool(client, "get_repository", {"full_name": "reads-org/none"})
    assert not is_error, repo
    assert repo["full_name"] == REPO and repo["default_branch"] == "main"
    assert repo["private"] is False
    assert repo["permissions"] == {"admin": True, "push": True, "pull": True}
    assert repo["html_url"].endswith(f"/{REPO}")
    assert error_code(missing) == "not_found"


async def test_get_repository_reports_a_non_main_default_branch(make_runtime, forge):
    forge.seed_repo("reads-org/trunk-repo", {"a.txt": "a\n"}, default_branch="trunk")
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, repo = await call_tool(client, "get_repository", {"full_name": "reads-org/trunk-repo"})
        _, read = await call_tool(
            client, "get_file_contents", {"full_name": "reads-org/trunk-repo", "path": "a.txt"}
        )
    assert repo["default_branch"] == "trunk"
    assert read["ref"] == "trunk" and read["content"] == "a\n"


async def test_list_branches_protection_sha_and_cursor(make_runtime, forge):
    full_name = "reads-org/branchy"
    summary = forge.seed_repo(
        full_name,
        {"a.txt": "a\n"},
        branches={f"topic-{i}": {f"t{i}.txt": f"{i}\n"} for i in range(5)},
    )
    set_branch_protection(forge, full_name, "main", required_approvals=1)
    heads = summary["branches"]
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, everything = await call_tool(client, "list_branches", {"full_name": full_name})
        names: list[str] = []
        cursor = None
        while True:
            args: dict[str, Any] = {"full_name": full_name, "limit": 2}
            if cursor:
                args["cursor"] = cursor
            _, page = await call_tool(client, "list_branches", args)
            assert len(page["branches"]) <= 2
            names += [b["name"] for b in page["branches"]]
            cursor = page.get("next_cursor")
            if not cursor:
                break
        _, bad_limit = await call_tool(
            client, "list_branches", {"full_name": full_name, "limit": 101}
        )
        _, missing = await call_tool(client, "list_branches", {"full_name": "reads-org/none"})
    listed = {b["name"]: b for b in everything["branches"]}
    assert set(listed) == set(heads)
    assert {n: b["sha"] for n, b in listed.items()} == heads
    assert listed["main"]["protected"] is True
    assert all(not b["protected"] for n, b in listed.items() if n != "main")
    assert sorted(names) == sorted(heads) and len(names) == len(set(names))
    assert error_code(bad_limit) == "invalid_input"
    assert error_code(missing) == "not_found"


@pytest.fixture(scope="module")
def history_repo(forge, forge_token):
    full_name = "reads-org/history"
    forge.seed_repo(full_name, {"a.txt": "a\n"}, branches={"work": {"b.txt": "b\n"}})
    long_title = "Refactor " + "very " * 200 + "long subject"
    for i in range(3):
        response = httpx.put(
            f"{forge.base_url}/repos/{full_name}/contents/c{i}.txt",
            headers={"Authorization": f"Bearer {forge_token}"},
            json={
                "message": f"{long_title} {i}\n\n" + "body line\n" * 200,
                "branch": "work",
                "content": base64.b64encode(("changed\n" * 400 + f"{i}\n").encode()).decode(),
            },
        )
        assert response.status_code == 201, response.text
    return full_name


async def test_list_commits_compact_and_paged(make_runtime, history_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, listing = await call_tool(
            client, "list_commits", {"full_name": history_repo, "ref": "work"}
        )
        _, first = await call_tool(
            client, "list_commits", {"full_name": history_repo, "ref": "work", "limit": 2}
        )
        _, second = await call_tool(
            client,
            "list_commits",
            {"full_name": history_repo, "ref": "work", "limit": 2, "cursor": first["next_cursor"]},
        )
        _, by_path_ = await call_tool(
            client, "list_commits", {"full_name": history_repo, "ref": "work", "path": "c1.txt"}
        )
        _, missing = await call_tool(
            client, "list_commits", {"full_name": history_repo, "ref": "no-such-branch"}
        )
    assert not is_error, listing
    commits = listing["commits"]
    assert len(commits) == 5  # initial, the branch seed, three long-message commits
    for commit in commits:
        assert len(json.dumps(commit).encode()) <= 300, commit
        assert "\n" not in commit["message"]
    assert commits[0]["message"].startswith("Refactor very")
    assert [c["sha"] for c in first["commits"] + second["commits"]] == [
        c["sha"] for c in commits[:4]
    ]
    assert len(by_path_["commits"]) == 1
    assert error_code(missing) == "not_found"


async def test_get_commit_patch_is_opt_in_and_capped(make_runtime, history_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, plain = await call_tool(client, "get_commit", {"full_name": history_repo, "ref": "work"})
        _, patched = await call_tool(
            client, "get_commit", {"full_name": history_repo, "ref": "work", "include_patch": True}
        )
        _, capped = await call_tool(
            client,
            "get_commit",
            {
                "full_name": history_repo,
                "ref": "work",
                "include_patch": True,
                "max_patch_bytes": 100,
            },
        )
        _, missing = await call_tool(
            client, "get_commit", {"full_name": history_repo, "ref": "0" * 40}
        )
    assert plain["files"][0]["path"] == "c2.txt"
    assert plain["stats"]["additions"] == 401
    assert "patch" not in plain["files"][0]
    assert len(plain["parents"]) == 1
    assert len(plain["message"]) <= 2000
    assert patched["files"][0]["patch"].startswith("@@")
    assert patched.get("truncated") is False
    assert capped["truncated"] is True
    assert 0 < len(capped["files"][0]["patch"].encode()) <= 100
    assert error_code(missing) == "not_found"


async def test_compare_refs(make_runtime, history_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, main_head = await call_tool(
            client, "get_commit", {"full_name": history_repo, "ref": "main"}
        )
        is_error, ahead = await call_tool(
            client, "compare_refs", {"full_name": history_repo, "base": "main", "head": "work"}
        )
        _, behind = await call_tool(
            client, "compare_refs", {"full_name": history_repo, "base": "work", "head": "main"}
        )
        _, missing = await call_tool(
            client, "compare_refs", {"full_name": history_repo, "base": "main", "head": "nope"}
        )
    assert not is_error, ahead
    assert ahead["status"] == "ahead"
    assert (ahead["ahead_by"], ahead["behind_by"]) == (4, 0)
    assert ahead["merge_base_sha"] == main_head["sha"]
    assert [f["path"] for f in ahead["files"]] == ["b.txt", "c0.txt", "c1.txt", "c2.txt"]
    assert len(ahead["commits"]) == 4
    assert (behind["status"], behind["behind_by"]) == ("behind", 4)
    assert error_code(missing) == "not_found"


# --- search and fetch (ChatGPT connector shapes) ------------------------------------------


@pytest.fixture(scope="module")
def search_repo(forge):
    from sandbox_forge.admin.seed_collab import create_issue, create_pull

    full_name = "reads-org/searchable"
    forge.seed_repo(
        full_name,
        {
            "src/zoo.py": "def zebracorn():\n    return 'unique zebracorn token'\n",
            "README.md": "# searchable\n",
        },
        branches={"feat/quokka": {"src/quokka.py": "QUOKKA = 1\n"}},
        description="A repository to find",
    )
    issue = create_issue(forge, full_name, "Quokka\u200b sightings", body="Seen\u202e twice.")
    pull = create_pull(forge, full_name, "feat/quokka", "main", "Add quokka module")
    return full_name, issue["number"], pull["number"]


async def test_search_and_fetch_code(make_runtime, search_repo):
    full_name, _, _ = search_repo
    rt = make_runtime()
    async with mcp_client(rt) as client:
        is_error, found = await call_tool(
            client, "search", {"query": "zebracorn", "full_name": full_name}
        )
        assert not is_error, found
        hit = next(r for r in found["results"] if r["id"].endswith(":src/zoo.py"))
        _, doc = await call_tool(client, "fetch", {"id": hit["id"]})
    assert set(hit) == {"id", "title", "url"}
    assert hit["id"].startswith(f"file:{full_name}@")
    assert set(doc) == {"id", "title", "text", "url", "metadata"}
    assert "unique zebracorn token" in doc["text"]
    assert doc["metadata"]["sha"] == git_hash(
        "def zebracorn():\n    return 'unique zebracorn token'\n"
    )


async def test_search_and_fetch_issues_pulls_repos_commits(make_runtime, search_repo):
    full_name, issue_number, pull_number = search_repo
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, issues = await call_tool(
            client, "search", {"query": "quokka", "kind": "issues", "full_name": full_name}
        )
        _, pulls = await call_tool(
            client, "search", {"query": "quokka", "kind": "pulls", "full_name": full_name}
        )
        _, repos = await call_tool(client, "search", {"query": "searchable", "kind": "repos"})
        _, commits = await call_tool(
            client, "search", {"query": "Initial", "kind": "commits", "full_name": full_name}
        )
        _, issue_doc = await call_tool(client, "fetch", {"id": f"issue:{full_name}#{issue_number}"})
        _, pr_doc = await call_tool(client, "fetch", {"id": f"pr:{full_name}#{pull_number}"})
        _, repo_doc = await call_tool(client, "fetch", {"id": f"repo:{full_name}"})
        commit_id = commits["results"][0]["id"] if commits.get("results") else None
        _, commit_doc = await call_tool(client, "fetch", {"id": commit_id or "commit:x/y@z"})
    assert [r["id"] for r in issues["results"]] == [f"issue:{full_name}#{issue_number}"]
    assert issues["results"][0]["title"] == "Quokka sightings"  # zero-width space stripped
    assert [r["id"] for r in pulls["results"]] == [f"pr:{full_name}#{pull_number}"]
    assert f"repo:{full_name}" in [r["id"] for r in repos["results"]]
    assert commit_id is not None and commit_id.startswith(f"commit:{full_name}@")
    assert issue_doc["text"] == "# Quokka sightings\n\nSeen twice."
    assert issue_doc["metadata"]["number"] == issue_number
    assert pr_doc["title"] == "Add quokka module"
    assert "default branch: main" in repo_doc["text"]
    assert repo_doc["metadata"]["default_branch"] == "main"
    assert commit_doc["title"] == "Initial commit"


async def test_fetch_errors_and_allowlist(make_runtime, forge, search_repo):
    full_name, issue_number, _ = search_repo
    rt = make_runtime(repo_allowlist="someone/else")
    open_rt = make_runtime()
    async with mcp_client(rt) as client, mcp_client(open_rt) as open_client:
        forge.clear_requests()
        _, bad = await call_tool(client, "fetch", {"id": "nonsense"})
        assert settled_requests(forge) == []
        _, denied = await call_tool(client, "fetch", {"id": f"issue:{full_name}#{issue_number}"})
        _, filtered = await call_tool(client, "search", {"query": "zebracorn"})
        _, missing = await call_tool(open_client, "fetch", {"id": f"issue:{full_name}#9999"})
        _, missing_file = await call_tool(
            open_client, "fetch", {"id": f"file:{full_name}@main:nope.txt"}
        )
    assert error_code(bad) == "invalid_input"
    assert error_code(denied) == "repo_not_allowed"
    assert filtered["results"] == []  # hits outside the allow-list are dropped
    assert error_code(missing) == "not_found"
    assert error_code(missing_file) == "not_found"


async def test_fetch_bad_file_path_is_invalid_input(make_runtime, forge, search_repo):
    full_name, _, _ = search_repo
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, bad_path = await call_tool(client, "fetch", {"id": f"file:{full_name}@main:../x"})
        assert settled_requests(forge) == []
    assert error_code(bad_path) == "invalid_input"
