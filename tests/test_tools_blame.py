"""get_file_blame through a real MCP client against the forge, whose GraphQL `blame` runs
real `git blame` on its bare repositories. Evidence is git's own: the commits written here
(by two authors, at known times) and `git blame` run by the test. Ranges of one commit that
git splits are merged, SHAs are shortened only while unique, a line window clips the
ranges, and hostile paths, refs and repositories outside the allow-list are refused."""

from __future__ import annotations

import re

from sandbox_forge.git.objects import Signature, TreeChange
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.test_tools_write import git, new_repo

ALICE = ("Alice Admin", "alice@users.noreply.sandbox")  # a forge user: blamed by login
STRANGER = ("Some Contributor", "someone@example.invalid")  # no account: blamed by name


def commit(forge, full_name: str, files: dict[str, str], who: tuple[str, str], when: int) -> str:
    """A commit on main by `who` at `when`, written with git plumbing (exact dates)."""
    repo = forge.state.repo(*full_name.split("/"))
    head = repo.git.read_ref("refs/heads/main")
    base = repo.git.read_commit(head).tree
    changes = [
        TreeChange(path, sha=repo.git.write_blob(text.encode())) for path, text in files.items()
    ]
    tree = repo.git.build_tree(base, changes)
    signature = Signature(who[0], who[1], when)
    sha = repo.git.create_commit(tree, [head], f"Change {sorted(files)}\n", signature, signature)
    assert repo.git.update_ref("refs/heads/main", sha, head)
    return sha


def git_blame(forge, full_name: str, path: str) -> list[str]:
    """The commit of every line, by git itself."""
    out = git(forge, full_name, "blame", "--line-porcelain", "main", "--", path)
    return re.findall(r"^([0-9a-f]{40}) \d+ \d+", out, flags=re.M)


def lines_of(answer: dict, commits: dict[str, str]) -> list[str]:
    """Expand the compact answer back to one full SHA per line."""
    full = {
        key: next(s for s in commits.values() if s.startswith(key)) for key in answer["commits"]
    }
    return [full[r["commit"]] for r in answer["ranges"] for _ in range(r["start"], r["end"] + 1)]


async def test_blame_matches_git_and_is_compact(make_runtime, forge):
    alice = forge.state.ensure_user("alice")
    alice.email = ALICE[1]
    repo = new_repo(forge, files={"app.py": "a\nb\nc\nd\ne\nf\n"}, prefix="blame-org")
    first = git(forge, repo, "rev-parse", "main").strip()
    second = commit(forge, repo, {"app.py": "a\nB\nc\nd\nE\nf\n"}, ALICE, 1_700_000_000)
    third = commit(forge, repo, {"app.py": "a\nB\nc\nD\nE\nf\ng\n"}, STRANGER, 1_800_000_000)
    shas = {"first": first, "second": second, "third": third}
    async with mcp_client(make_runtime()) as client:
        _, whole = await call_tool(client, "get_file_blame", {"full_name": repo, "path": "app.py"})
        _, window = await call_tool(
            client,
            "get_file_blame",
            {"full_name": repo, "path": "app.py", "start_line": 2, "end_line": 4},
        )
        _, at_first = await call_tool(
            client, "get_file_blame", {"full_name": repo, "path": "app.py", "ref": first}
        )
    assert lines_of(whole, shas) == git_blame(forge, repo, "app.py")
    assert whole["commit_sha"] == third and whole["message_trust"] == "untrusted"
    # lines 4-5 are D (third) then E (second): every range is a maximal run of one commit
    assert [(r["start"], r["end"]) for r in whole["ranges"]] == [
        (1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7),
    ]  # fmt: skip
    assert all(len(key) >= 7 for key in whole["commits"])
    by_key = {key: value for key, value in whole["commits"].items()}
    assert (
        by_key[second[: len(next(k for k in by_key if second.startswith(k)))]]["author"] == "alice"
    )
    stranger = next(v for k, v in by_key.items() if third.startswith(k))
    assert stranger["author"] == "Some Contributor"
    ages = {r["commit"]: r["age"] for r in whole["ranges"]}
    assert ages[next(k for k in by_key if third.startswith(k))] == 1  # newest
    assert ages[next(k for k in by_key if first.startswith(k))] >= 1
    assert [(r["start"], r["end"]) for r in window["ranges"]] == [(2, 2), (3, 3), (4, 4)]
    assert set(window["commits"]) == {r["commit"] for r in window["ranges"]}
    assert at_first["commit_sha"] == first
    assert [(r["start"], r["end"]) for r in at_first["ranges"]] == [(1, 6)]


async def test_adjacent_lines_of_one_commit_merge_into_one_range(make_runtime, forge):
    repo = new_repo(forge, files={"m.txt": "1\n2\n3\n4\n"}, prefix="blame-org")
    first = git(forge, repo, "rev-parse", "main").strip()
    # deleting line 2 leaves lines 1 and 3-4 of the first commit adjacent: git reports
    # them as two groups (they came from apart), the answer as one range
    commit(forge, repo, {"m.txt": "1\n3\n4\n"}, STRANGER, 1_750_000_000)
    porcelain = git(forge, repo, "blame", "--porcelain", "main", "--", "m.txt")
    groups = re.findall(r"^[0-9a-f]{40} \d+ \d+ \d+$", porcelain, flags=re.M)
    async with mcp_client(make_runtime()) as client:
        _, answer = await call_tool(client, "get_file_blame", {"full_name": repo, "path": "m.txt"})
    assert len(groups) == 2
    assert answer["ranges"] == [{"start": 1, "end": 3, "commit": first[:7], "age": 1}]
    assert list(answer["commits"]) == [first[:7]]


async def test_hostile_paths_refs_and_repositories(make_runtime, forge):
    repo = new_repo(forge, files={"ok.txt": "x\n", "dir/f.txt": "y\n"}, prefix="blame-org")
    async with mcp_client(make_runtime(repo_allowlist="blame-org/*")) as client:
        forge.clear_requests()
        refused = [
            await call_tool(client, "get_file_blame", {"full_name": repo, "path": path})
            for path in ("../../etc/passwd", "dir/../../x", "/etc/passwd", "a\x00b", "")
        ]
        after_paths = settled_requests(forge)
        _, outside = await call_tool(
            client, "get_file_blame", {"full_name": DEMO_REPO, "path": "README.md"}
        )
        _, bad_ref = await call_tool(
            client, "get_file_blame", {"full_name": repo, "path": "ok.txt", "ref": "--output=x"}
        )
        _, no_ref = await call_tool(
            client, "get_file_blame", {"full_name": repo, "path": "ok.txt", "ref": "nope"}
        )
        _, missing = await call_tool(
            client, "get_file_blame", {"full_name": repo, "path": "missing.txt"}
        )
        _, a_dir = await call_tool(client, "get_file_blame", {"full_name": repo, "path": "dir"})
        forge.clear_requests()
        _, backwards = await call_tool(
            client,
            "get_file_blame",
            {"full_name": repo, "path": "ok.txt", "start_line": 5, "end_line": 2},
        )
        after_window = settled_requests(forge)
    assert all(is_error for is_error, _ in refused) and after_paths == [], refused
    assert after_window == []
    assert error_code(outside) == "repo_not_allowed"
    assert bad_ref is not None and "error" in bad_ref
    assert error_code(no_ref) == "not_found"
    assert error_code(missing) == "not_found" and error_code(a_dir) == "not_found"
    assert error_code(backwards) == "invalid_input"
    assert not (forge.state.data_dir / "x").exists()


async def test_the_demo_calculator_has_two_authors_of_history(make_runtime, forge):
    async with mcp_client(make_runtime()) as client:
        _, answer = await call_tool(
            client, "get_file_blame", {"full_name": DEMO_REPO, "path": "src/demo_app/calc.py"}
        )
    messages = {c["message"] for c in answer["commits"].values()}
    assert "Use true division in divide" in messages and len(answer["commits"]) >= 2


def test_shas_sharing_seven_characters_get_longer_keys():
    from github_mcp.services.repos.blame import compact

    one, two = "abcdef0" + "1" * 33, "abcdef0" + "2" * 33
    raw = [
        {"startingLine": 1, "endingLine": 1, "age": 1, "commit": {"oid": one}},
        {"startingLine": 2, "endingLine": 2, "age": 9, "commit": {"oid": two}},
    ]
    answer = compact("f", one, raw, (1, None))
    assert [r.commit for r in answer.ranges] == ["abcdef01", "abcdef02"]
    assert set(answer.commits) == {"abcdef01", "abcdef02"}
