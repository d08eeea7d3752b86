"""The git layer's shortcuts answer what git itself answers: refs listed from their files
(loose, packed, symbolic, locked, broken), history answers kept by object id (dropped from
use the moment replace refs or grafts rewrite history), and the repository's disk size."""

from __future__ import annotations

import os
import subprocess

import pytest

from sandbox_forge.git.objects import Signature, TreeChange
from sandbox_forge.git.runner import GitError
from sandbox_forge.stores.records import RepoRecord

from .conftest import LAB, Lab
from .test_read_caches import git, lab_repo

PREFIXES = ("refs/", "refs/heads/", "refs/tags/", "refs/heads/feature/")


def for_each_ref(repo: RepoRecord, prefix: str) -> list[tuple[str, str, str]]:
    out = git(repo, "for-each-ref", "--format=%(refname) %(objectname) %(objecttype)", prefix)
    return [tuple(line.split(" ")) for line in out.splitlines()]  # type: ignore[misc]


def assert_listing_matches(repo: RepoRecord) -> None:
    for prefix in PREFIXES:
        assert repo.git.list_refs(prefix) == for_each_ref(repo, prefix), prefix


def test_ref_listing_matches_for_each_ref(api, lab: Lab):
    repo = lab_repo(lab)
    lab.commit(api, LAB, "main", "later.txt", "x\n")
    git(repo, "tag", "-a", "-m", "annotated", "v1", "refs/heads/main")
    git(repo, "tag", "light", "refs/heads/feature/two")
    assert_listing_matches(repo)
    git(repo, "pack-refs", "--all")  # every ref now packed only
    assert not os.path.exists(repo.git.path / "refs" / "heads" / "main")
    assert_listing_matches(repo)
    moved = lab.commit(api, LAB, "main", "again.txt", "y\n")  # loose again, over the packed one
    assert_listing_matches(repo)
    assert ("refs/heads/main", moved, "commit") in repo.git.list_refs("refs/heads/")
    git(repo, "update-ref", "-d", "refs/heads/feature/notes")
    assert_listing_matches(repo)
    assert all(name != "refs/heads/feature/notes" for name, _, _ in repo.git.list_refs())


def test_odd_ref_files_are_left_to_git(lab: Lab):
    repo = lab_repo(lab)
    git(repo, "symbolic-ref", "refs/heads/alias", "refs/heads/main")
    assert_listing_matches(repo)
    assert any(name == "refs/heads/alias" for name, _, _ in repo.git.list_refs("refs/heads/"))
    lock = repo.git.path / "refs" / "heads" / "main.lock"
    lock.write_text("garbage\n")
    assert_listing_matches(repo)
    lock.unlink()
    broken = repo.git.path / "refs" / "heads" / "broken"
    broken.write_text("1234567890123456789012345678901234567890\n")
    with pytest.raises(subprocess.CalledProcessError):
        for_each_ref(repo, "refs/heads/")
    with pytest.raises(GitError, match="missing object"):
        repo.git.list_refs("refs/heads/")


def test_a_ref_pushed_and_deleted_is_listed_at_once(api, lab: Lab):
    repo = lab_repo(lab)
    assert "refs/heads/fresh" not in {name for name, _, _ in repo.git.list_refs()}
    main = lab.head(LAB, "main")
    made = api.post(f"/repos/{LAB}/git/refs", json={"ref": "refs/heads/fresh", "sha": main})
    assert made.status_code == 201, made.text
    assert ("refs/heads/fresh", main, "commit") in repo.git.list_refs("refs/heads/")
    assert api.delete(f"/repos/{LAB}/git/refs/heads/fresh").status_code == 204
    assert_listing_matches(repo)
    assert "refs/heads/fresh" not in {name for name, _, _ in repo.git.list_refs()}


def numstat(repo: RepoRecord, base: str, head: str) -> list[tuple[str, int, int]]:
    out = git(repo, "diff-tree", "-r", "-M", "--numstat", base, head)
    return [(p, int(a), int(d)) for a, d, p in (line.split("\t") for line in out.splitlines())]


def forge_numstat(repo: RepoRecord, base: str, head: str) -> list[tuple[str, int, int]]:
    return [(d.path, d.additions, d.deletions) for d in repo.git.diff(base, head)]


def test_history_answers_follow_replace_refs_and_grafts(api, lab: Lab):
    repo = lab_repo(lab)
    base, head = lab.head(LAB, "main"), lab.head(LAB, "feature/two")
    other = lab.head(LAB, "feature/notes")
    kept = forge_numstat(repo, base, head)
    assert kept == numstat(repo, base, head) == [("app.py", 1, 1)]
    assert repo.git.rev_list([head]) == git(repo, "rev-list", head).split()
    # A replace ref makes git read feature/notes' commit wherever feature/two's is named.
    git(repo, "replace", head, other)
    assert forge_numstat(repo, base, head) == numstat(repo, base, head) != kept
    assert repo.git.merge_base(base, head) == git(repo, "merge-base", base, head).strip()
    git(repo, "replace", "-d", head)
    assert forge_numstat(repo, base, head) == numstat(repo, base, head) == kept
    # A grafts file cuts the head's parents: the head alone is its history.
    (repo.git.path / "info").mkdir(exist_ok=True)
    (repo.git.path / "info" / "grafts").write_text(f"{head}\n")
    assert repo.git.rev_list([head]) == git(repo, "rev-list", head).split() == [head]
    assert repo.git.is_ancestor(base, head) is False
    (repo.git.path / "info" / "grafts").unlink()
    assert repo.git.rev_list([head]) == git(repo, "rev-list", head).split() == [head, base]
    assert repo.git.is_ancestor(base, head) is True


def test_kept_diffs_are_copies_callers_cannot_spoil(lab: Lab):
    repo = lab_repo(lab)
    base, head = lab.head(LAB, "main"), lab.head(LAB, "feature/two")
    first = repo.git.diff(base, head)
    first[0].additions = 999
    first.clear()
    assert forge_numstat(repo, base, head) == numstat(repo, base, head) == [("app.py", 1, 1)]


def raw_and_numstat(repo: RepoRecord, base: str, head: str) -> list[tuple]:
    """git's --raw and --numstat, each from its own run, paired file by file."""
    opts = ["diff-tree", "-r", "-M", "--full-index"]
    raw = git(repo, *opts, "--raw", base, head).splitlines()
    stat = git(repo, *opts, "--numstat", base, head).splitlines()
    assert len(raw) == len(stat)
    paired = []
    for record, counts in zip(raw, stat, strict=True):
        meta, _, paths = record.partition("\t")
        add, dele, _ = counts.split("\t", 2)
        path = paths.split("\t")[-1]
        binary = add == "-"
        paired.append((path, meta.split()[4][0], 0 if binary else int(add), binary))
    return paired


def test_sizes_from_one_git_run_equal_two_runs(lab: Lab):
    """diff_stats reads --raw and --numstat from one run; renames, binaries and a name that
    starts like a raw record (":") come out as from two runs, and as diff() has them."""
    repo = lab_repo(lab)
    base = lab.head(LAB, "main")
    blob = repo.git.write_blob
    changes = [
        TreeChange("notes.txt"),  # deleted
        TreeChange("renamed-notes.txt", sha=blob(b"alpha\nbeta\ngamma\nmore\n")),
        TreeChange(":odd", sha=blob(b"1\n2\n")),
        TreeChange("image.bin", sha=blob(b"\0\1\2binary")),
        TreeChange("app.py", sha=blob(b"def one():\n    return 11\n")),
    ]
    tree = repo.git.build_tree(repo.git.read_commit(base).tree, changes)
    who = Signature("T", "t@example.com", 1_700_000_000)
    head = repo.git.create_commit(tree, [base], "mixed\n", who, who)
    stats = repo.git.diff_stats(base, head)
    letters = {"renamed": "R", "removed": "D", "added": "A", "modified": "M"}
    got = [(d.path, letters[d.status], d.additions, d.binary) for d in stats]
    assert got == raw_and_numstat(repo, base, head)
    assert {d.path for d in stats} == {":odd", "image.bin", "renamed-notes.txt", "app.py"}
    assert sorted(letter for _, letter, _, _ in got) == ["A", "A", "M", "R"]
    assert [binary for path, _, _, binary in got if path == "image.bin"] == [True]
    full = repo.git.diff(base, head)
    assert all(d.patch is None for d in stats) and any(d.patch for d in full)
    assert [(d.path, d.additions, d.deletions) for d in full] == [
        (d.path, d.additions, d.deletions) for d in stats
    ]


def walked_kb(path: str) -> int:
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.path.getsize(os.path.join(root, name))
            except OSError:
                continue
    return total // 1024


def test_repository_size_counts_as_walking_the_directory_does(api, lab: Lab):
    repo = lab_repo(lab)
    (repo.git.path / "bulk").write_bytes(b"z" * 300_000)  # enough to move the kilobytes
    os.symlink(repo.git.path / "objects", repo.git.path / "linked-dir")  # not entered
    os.symlink(repo.git.path / "nowhere", repo.git.path / "dangling")  # counts nothing
    size = api.get(f"/repos/{LAB}").json()["size"]
    assert size == walked_kb(str(repo.git.path)) and size >= 290
