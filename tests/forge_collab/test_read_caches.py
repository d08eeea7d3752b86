"""The forge's read caches never serve stale answers: after a push to a pull request's head,
a force-move of its base or head, or a commit on a branch, REST and GraphQL answer what
plain git computes from scratch at that moment. The evidence is git run afresh on the
repository (outside the forge's code), compared with the forge's answers."""

from __future__ import annotations

import os
import subprocess
from typing import Any

from sandbox_forge.stores.records import RepoRecord

from .conftest import LAB, Lab, graphql

OVERVIEW = """
query($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      headRefOid baseRefOid additions deletions changedFiles
      files(first: 100) { totalCount nodes { path additions deletions } }
      commits(last: 1) { totalCount nodes { commit { oid } } }
    }
  }
}
"""


def git(repo: RepoRecord, *args: str) -> str:
    """git itself on the bare repository, with nothing of the forge in between."""
    who = {"GIT_COMMITTER_NAME": "Test", "GIT_COMMITTER_EMAIL": "test@example.com"}
    env = {**os.environ, **who, "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}
    argv = ["git", f"--git-dir={repo.git.path}", *args]
    return subprocess.run(argv, capture_output=True, env=env, check=True, text=True).stdout


def lab_repo(lab: Lab) -> RepoRecord:
    repo = lab.forge.state.repo("octocat", "lab")
    assert repo is not None
    return repo


def fresh(repo: RepoRecord, base: str, head: str) -> dict[str, Any]:
    """What the pull request's numbers are, computed by git from scratch."""
    tip = git(repo, "rev-parse", f"refs/heads/{head}").strip()
    start = git(repo, "merge-base", f"refs/heads/{base}", tip).strip()
    files = {}
    for line in git(repo, "diff-tree", "-r", "-M", "--numstat", start, tip).splitlines():
        add, dele, path = line.split("\t")
        files[path] = (int(add), int(dele))
    commits = git(repo, "rev-list", "--count", tip, f"^{start}").strip()
    return {"head": tip, "files": files, "commits": int(commits)}


def rest_view(api: Any, number: int) -> dict[str, Any]:
    pull = api.get(f"/repos/{LAB}/pulls/{number}").json()
    listed = api.get(f"/repos/{LAB}/pulls/{number}/files").json()
    files = {f["filename"]: (f["additions"], f["deletions"]) for f in listed}
    assert pull["changed_files"] == len(files)
    assert pull["additions"] == sum(a for a, _ in files.values())
    assert pull["deletions"] == sum(d for _, d in files.values())
    return {"head": pull["head"]["sha"], "files": files, "commits": pull["commits"]}


def graphql_view(api: Any, number: int) -> dict[str, Any]:
    found = graphql(api, OVERVIEW, owner="octocat", name="lab", number=number)
    assert "errors" not in found, found
    pull = found["data"]["repository"]["pullRequest"]
    files = {f["path"]: (f["additions"], f["deletions"]) for f in pull["files"]["nodes"]}
    assert pull["changedFiles"] == pull["files"]["totalCount"] == len(files)
    assert pull["additions"] == sum(a for a, _ in files.values())
    assert pull["deletions"] == sum(d for _, d in files.values())
    assert pull["commits"]["nodes"][0]["commit"]["oid"] == pull["headRefOid"]
    return {"head": pull["headRefOid"], "files": files, "commits": pull["commits"]["totalCount"]}


def open_pull(api: Any) -> int:
    made = api.post(
        f"/repos/{LAB}/pulls", json={"title": "t", "head": "feature/two", "base": "main"}
    )
    assert made.status_code == 201, made.text
    return made.json()["number"]


def agree(api: Any, lab: Lab, number: int) -> dict[str, Any]:
    """REST and GraphQL (each asked twice, so the second may come from a cache) both say
    what git says now."""
    truth = fresh(lab_repo(lab), "main", "feature/two")
    for _ in range(2):
        assert rest_view(api, number) == truth
        assert graphql_view(api, number) == truth
    return truth


def test_a_push_to_the_head_is_seen_at_once(api, lab):
    number = open_pull(api)
    before = agree(api, lab, number)
    assert before["files"] == {"app.py": (1, 1)}
    lab.commit(api, LAB, "feature/two", "extra.txt", "one\ntwo\nthree\n")
    after = agree(api, lab, number)
    assert after["files"] == {"app.py": (1, 1), "extra.txt": (3, 0)}
    assert after["commits"] == 2 and after["head"] != before["head"]


def test_moving_the_base_and_the_head_back_is_seen_at_once(api, lab):
    number = open_pull(api)
    first = lab.head(LAB, "feature/two")
    lab.commit(api, LAB, "feature/two", "extra.txt", "one\n")
    agree(api, lab, number)
    # The base gains the head's first commit: the diff shrinks to the second one.
    moved = api.patch(f"/repos/{LAB}/git/refs/heads/main", json={"sha": first, "force": True})
    assert moved.status_code == 200, moved.text
    shrunk = agree(api, lab, number)
    assert shrunk["files"] == {"extra.txt": (1, 0)} and shrunk["commits"] == 1
    # The head is forced back onto a sibling of the base: the same branch names, new ends.
    lab.commit(api, LAB, "main", "base-only.txt", "b\n")
    back = api.patch(f"/repos/{LAB}/git/refs/heads/feature/two", json={"sha": first, "force": True})
    assert back.status_code == 200, back.text
    lab.commit(api, LAB, "feature/two", "other.txt", "x\ny\n")
    assert agree(api, lab, number)["files"] == {"other.txt": (2, 0)}


def test_commit_lists_and_code_search_follow_the_branch(api, lab):
    repo = lab_repo(lab)
    listed = api.get(f"/repos/{LAB}/commits", params={"sha": "main", "per_page": 30}).json()
    assert [c["sha"] for c in listed] == git(repo, "rev-list", "refs/heads/main").split()
    search = {"q": "zebrafish repo:octocat/lab"}
    assert api.get("/search/code", params=search).json()["total_count"] == 0
    new = lab.commit(api, LAB, "main", "fish.txt", "zebrafish\n")
    listed = api.get(f"/repos/{LAB}/commits", params={"sha": "main", "per_page": 30}).json()
    assert [c["sha"] for c in listed] == git(repo, "rev-list", "refs/heads/main").split()
    assert listed[0]["sha"] == new
    found = api.get("/search/code", params=search).json()
    assert [item["path"] for item in found["items"]] == ["fish.txt"]


def test_graphql_errors_are_answered_alike_every_time(api):
    unknown_field = "{ viewer { login noSuchField } }"
    bad_syntax = "{ viewer { login "
    first = {}
    for query in (unknown_field, bad_syntax):
        answers = [api.post("/graphql", json={"query": query}).json() for _ in range(3)]
        assert answers[0] == answers[1] == answers[2]
        assert "data" not in answers[0] and answers[0]["errors"], answers[0]
        first[query] = answers[0]
    assert "noSuchField" in first[unknown_field]["errors"][0]["message"]
    assert first[bad_syntax]["errors"][0]["message"].startswith("Syntax Error")
    # A valid text after invalid ones, and the invalid one again after a valid one.
    valid = api.post("/graphql", json={"query": "{ viewer { login } }"}).json()
    assert valid == {"data": {"viewer": {"login": "octocat"}}}
    assert api.post("/graphql", json={"query": unknown_field}).json() == first[unknown_field]


def test_a_valid_document_is_still_checked_against_its_variables(api):
    query = (
        'query($n: Int!) { repository(owner: "octocat", name: "lab") '
        "{ pullRequest(number: $n) { number } } }"
    )
    missing = api.post("/graphql", json={"query": query, "variables": {}}).json()
    assert missing["errors"] and "$n" in missing["errors"][0]["message"]
    wrong = api.post("/graphql", json={"query": query, "variables": {"n": "x"}}).json()
    assert wrong["errors"] and "$n" in wrong["errors"][0]["message"]
    assert api.post("/graphql", json={"query": query, "variables": {}}).json() == missing
