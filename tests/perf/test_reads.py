"""First reads in one round trip, batches in one request: the requests each read sends to
the forge, counted from the forge's request log, and every guarantee of the reads kept
(byte cap, binary detection, UTF-8 tail, total_bytes, not_found never cached)."""

from __future__ import annotations

import base64

import pytest

from tests.conftest import call_tool, error_code, mcp_client, settled_requests

REPO = "perf-org/reads"
# Past GitHub's 512,000-byte cut of Blob.text: the raw read finishes it.
LARGE = "".join(f"row {i:07d}\n" for i in range(60_000))  # 720,000 bytes
BINARY = b"\x89PNG\r\n\x1a\n\x00\x00binary"
NOT_UTF8 = b"caf\xe9 latin-1\n"  # no NUL, but not UTF-8: binary by our rules
FILES: dict[str, str | bytes] = {
    "README.md": "# reads\n",
    "src/app.py": "print('hello')\n",
    "src/deep/mod.py": "x = 1\n",
    "multi.txt": "é" * 50,
    "large.txt": LARGE,
    "image.png": BINARY,
    "latin1.txt": NOT_UTF8,
}


@pytest.fixture(scope="module")
def reads_repo(forge):
    forge.seed_repo(REPO, FILES, branches={"feature": {"README.md": "# feature\n"}})
    git = forge.state.repo(*REPO.split("/")).git
    head = git.read_ref("refs/heads/feature")
    tag = git.run(
        "hash-object",
        "-t",
        "tag",
        "-w",
        "--stdin",
        input=(
            f"object {head}\ntype commit\ntag v1\n"
            "tagger Perf <perf@example.com> 1700000000 +0000\n\nrelease v1\n"
        ).encode(),
    )
    git.force_ref("refs/tags/v1", tag.decode().strip())
    return REPO


def paths_of(forge) -> list[str]:
    return sorted(e["path"] for e in settled_requests(forge))


async def test_first_read_at_a_branch_is_one_round_trip_and_a_repeat_costs_none(
    make_runtime, forge, reads_repo
):
    rt = make_runtime()
    args = {"full_name": REPO, "path": "README.md", "ref": "feature"}
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, read = await call_tool(client, "get_file_contents", args)
        first = paths_of(forge)
        forge.clear_requests()
        _, again = await call_tool(client, "get_file_contents", args)
        repeat = paths_of(forge)
    assert not is_error, read
    assert read["content"] == "# feature\n" and read["ref"] == "feature"
    # The GraphQL read and the ETag priming of the ref go out together: one round trip.
    assert first == ["/graphql", f"/repos/{REPO}/git/ref/heads/feature"]
    assert repeat == [] and again == read


async def test_first_read_at_the_default_branch_skips_the_default_branch_lookup(
    make_runtime, forge, reads_repo
):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, read = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "src/app.py"}
        )
        first = paths_of(forge)
        forge.clear_requests()
        _, sliced = await call_tool(
            client, "get_file_slice", {"full_name": REPO, "path": "src/app.py"}
        )
        second = paths_of(forge)
    assert read["ref"] == "main" and read["content"] == "print('hello')\n"
    assert first == ["/graphql"]
    # The default branch and its commit came with the first read; the slice is another
    # max_bytes, so only its content is read (at the commit, by oid).
    assert sliced["ref"] == "main" and second == ["/graphql"]


async def test_an_annotated_tag_and_a_sha_are_read_in_one_request(make_runtime, forge, reads_repo):
    rt = make_runtime()
    main_head = forge.state.repo(*REPO.split("/")).git.read_ref("refs/heads/main")
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, tagged = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "README.md", "ref": "v1"}
        )
        tag_requests = [e for e in settled_requests(forge) if e["path"] == "/graphql"]
        forge.clear_requests()
        _, by_sha = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "README.md", "ref": main_head},
        )
        sha_requests = paths_of(forge)
    assert tagged["content"] == "# feature\n" and tagged["ref"] == "v1"
    assert len(tag_requests) == 1
    assert by_sha["content"] == "# reads\n" and sha_requests == ["/graphql"]


async def test_byte_cap_utf8_tail_and_total_bytes(make_runtime, forge, reads_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, cut = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "multi.txt", "max_bytes": 11},
        )
    # 11 bytes would split the sixth two-byte character: five whole ones are kept.
    assert cut["content"] == "é" * 5 and cut["truncated"] is True
    assert cut["total_bytes"] == 100 and cut["size"] == 10


async def test_past_graphqls_text_limit_the_raw_read_finishes_the_file(
    make_runtime, forge, reads_repo
):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, whole = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "large.txt", "max_bytes": 1024 * 1024},
        )
        requests = paths_of(forge)
        forge.clear_requests()
        _, head = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "large.txt", "max_bytes": 1000, "ref": "main"},
        )
        small = [e["path"] for e in settled_requests(forge)]
    assert whole["content"] == LARGE and whole["truncated"] is False
    assert whole["total_bytes"] == len(LARGE)
    assert f"/repos/{REPO}/contents/large.txt" in requests
    # A prefix well inside GraphQL's text is taken from it: no raw read.
    assert head["content"] == LARGE[:1000] and head["truncated"] is True
    assert head["total_bytes"] == len(LARGE)
    assert not any("/contents/" in p for p in small)


async def test_binary_and_non_utf8_files(make_runtime, forge, reads_repo):
    rt = make_runtime()
    async with mcp_client(rt) as client:
        _, refused = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "image.png"}
        )
        _, allowed = await call_tool(
            client,
            "get_file_contents",
            {"full_name": REPO, "path": "image.png", "allow_binary": True},
        )
        _, latin = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "latin1.txt"}
        )
    assert error_code(refused) == "binary_file"
    assert refused["error"]["magic_hex"] == BINARY[:4].hex()
    assert base64.b64decode(allowed["content"]) == BINARY and allowed["encoding"] == "base64"
    assert error_code(latin) == "binary_file"


async def test_not_found_and_directories_are_never_cached(make_runtime, forge, reads_repo):
    rt = make_runtime()
    missing = {"full_name": REPO, "path": "nope.txt", "ref": "main"}
    async with mcp_client(rt) as client:
        _, first = await call_tool(client, "get_file_contents", missing)
        forge.clear_requests()
        _, second = await call_tool(client, "get_file_contents", missing)
        asked_again = [e["path"] for e in settled_requests(forge)]
        _, directory = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "src"}
        )
        _, no_ref = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "README.md", "ref": "gone"}
        )
    assert error_code(first) == error_code(second) == "not_found"
    assert asked_again == ["/graphql"]
    assert error_code(directory) == "not_a_file"
    assert error_code(no_ref) == "not_found"
    assert "gone" in no_ref["error"]["message"]


async def test_fetch_files_is_one_request_with_per_file_errors(make_runtime, forge, reads_repo):
    rt = make_runtime()
    wanted = ["README.md", "src/app.py", "missing.txt", "src", "src/deep/mod.py"]
    async with mcp_client(rt) as client:
        forge.clear_requests()
        is_error, batch = await call_tool(
            client, "fetch_files", {"full_name": REPO, "paths": wanted, "ref": "feature"}
        )
        requests = [e["path"] for e in settled_requests(forge)]
    assert not is_error, batch
    files = {f["path"]: f for f in batch["files"]}
    assert batch["ref"] == "feature" and batch["ok"] == 3 and batch["failed"] == 2
    assert files["README.md"]["content"] == "# feature\n"
    assert files["src/deep/mod.py"]["content"] == "x = 1\n"
    assert files["missing.txt"]["error"]["code"] == "not_found"
    assert files["src"]["error"]["code"] == "not_a_file"
    assert requests == ["/graphql"]


async def test_fetch_files_falls_back_to_raw_reads_only_for_what_graphql_cannot_give(
    make_runtime, forge, reads_repo
):
    rt = make_runtime()
    wanted = ["README.md", "large.txt", "image.png"]
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, batch = await call_tool(
            client,
            "fetch_files",
            {"full_name": REPO, "paths": wanted, "max_bytes_per_file": 1024 * 1024},
        )
        requests = sorted(e["path"] for e in settled_requests(forge))
    files = {f["path"]: f for f in batch["files"]}
    assert files["large.txt"]["content"] == LARGE
    assert files["image.png"]["error"]["code"] == "binary_file"
    assert requests == [
        "/graphql",
        f"/repos/{REPO}/contents/image.png",
        f"/repos/{REPO}/contents/large.txt",
    ]


async def test_a_write_makes_the_next_read_see_the_new_commit(make_runtime, forge, reads_repo):
    rt = make_runtime()
    args = {"full_name": REPO, "path": "src/deep/mod.py", "ref": "feature"}
    async with mcp_client(rt) as client:
        _, before = await call_tool(client, "get_file_contents", args)
        is_error, wrote = await call_tool(
            client,
            "apply_text_update_and_commit",
            {
                "full_name": REPO,
                "path": "src/deep/mod.py",
                "branch": "feature",
                "new_content": "x = 2\n",
                "message": "bump",
            },
        )
        assert not is_error, wrote
        _, after = await call_tool(client, "get_file_contents", args)
    assert before["content"] == "x = 1\n" and after["content"] == "x = 2\n"
