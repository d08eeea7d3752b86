"""PUT /pulls/{n}/merge: real commits for merge, squash and rebase; GitHub's refusals."""

from __future__ import annotations

import pytest

from .conftest import LAB


def _git(lab):
    repo = lab.forge.state.repo("octocat", "lab")
    assert repo is not None
    return repo.git


def _pull(api, head="feature/two", title="Two becomes 22"):
    response = api.post(f"/repos/{LAB}/pulls", json={"title": title, "head": head, "base": "main"})
    assert response.status_code == 201, response.text
    return response.json()


def _two_commit_branch(api, lab) -> str:
    """feature/two gets a second commit, so rebase and squash have something to fold."""
    lab.commit(api, LAB, "feature/two", "extra.txt", "more\n")
    return lab.head(LAB, "feature/two")


def test_merge_commit_has_both_parents(api, lab):
    head = _two_commit_branch(api, lab)
    pr = _pull(api)
    base = lab.head(LAB, "main")
    merged = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge", json={"sha": head})
    assert merged.status_code == 200, merged.text
    body = merged.json()
    assert body["merged"] is True and body["message"] == "Pull Request successfully merged"
    git = _git(lab)
    assert lab.head(LAB, "main") == body["sha"]
    info = git.read_commit(body["sha"])
    assert info.parents == (base, head)
    assert info.message.startswith(f"Merge pull request #{pr['number']} from octocat/feature/two")
    assert info.committer.email == "noreply@github.com"
    assert git.read_blob(git.entry_at(body["sha"], "extra.txt").sha) == b"more\n"

    after = api.get(f"/repos/{LAB}/pulls/{pr['number']}").json()
    assert after["merged"] is True and after["state"] == "closed"
    assert after["merged_by"]["login"] == "octocat"
    assert after["merge_commit_sha"] == body["sha"]
    assert after["merged_at"] is not None
    assert after["commits"] == 2  # a merged PR keeps its commits
    assert api.get(f"/repos/{LAB}/pulls/{pr['number']}/merge").status_code == 204
    again = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge")
    assert again.status_code == 405


def test_squash_writes_one_commit_with_the_same_tree(api, lab):
    head = _two_commit_branch(api, lab)
    pr = _pull(api)
    base = lab.head(LAB, "main")
    merged = api.put(
        f"/repos/{LAB}/pulls/{pr['number']}/merge", json={"merge_method": "squash"}
    ).json()
    git = _git(lab)
    info = git.read_commit(merged["sha"])
    assert info.parents == (base,)
    assert info.tree == git.read_commit(head).tree
    assert info.message.startswith(f"Two becomes 22 (#{pr['number']})")
    assert not git.is_ancestor(head, merged["sha"])


def test_rebase_replays_each_commit(api, lab):
    head = _two_commit_branch(api, lab)
    lab.commit(api, LAB, "main", "README.md", "# lab\n\nNow with a description.\n")
    base = lab.head(LAB, "main")
    pr = _pull(api)
    merged = api.put(
        f"/repos/{LAB}/pulls/{pr['number']}/merge", json={"merge_method": "rebase", "sha": head}
    )
    assert merged.status_code == 200, merged.text
    git = _git(lab)
    tip = merged.json()["sha"]
    replayed = git.rev_list([tip, f"^{base}"], extra=["--reverse"])
    originals = git.rev_list([head, f"^{base}"], extra=["--reverse"])
    assert len(replayed) == 2 and set(replayed).isdisjoint(originals)
    assert [git.read_commit(s).message for s in replayed] == [
        git.read_commit(s).message for s in originals
    ]
    assert git.read_commit(replayed[0]).parents == (base,)  # linear, on top of main
    tree_files = {e.path for e in git.ls_tree(tip, recursive=True)}
    assert {"extra.txt", "README.md", "app.py"} <= tree_files
    readme = git.read_blob(git.entry_at(tip, "README.md").sha)
    assert b"Now with a description." in readme


def test_stale_sha_is_refused_with_409(api, lab):
    pr = _pull(api)
    stale = lab.head(LAB, "feature/two")
    lab.commit(api, LAB, "feature/two", "extra.txt", "more\n")
    response = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge", json={"sha": stale})
    assert response.status_code == 409
    assert response.json()["message"] == "Head branch was modified. Review and try the merge again."
    assert lab.head(LAB, "main") != stale


def test_conflicting_pull_request_is_not_mergeable(api, lab):
    lab.commit(
        api, LAB, "main", "app.py", "def one():\n    return 1\n\n\ndef two():\n    return 0\n"
    )
    before = lab.head(LAB, "main")
    pr = _pull(api)
    response = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge")
    assert response.status_code == 405
    assert response.json()["message"] == "Pull Request is not mergeable"
    assert lab.head(LAB, "main") == before


@pytest.mark.parametrize("method", ["octopus", 3])
def test_unknown_merge_method_is_invalid(api, method):
    pr = _pull(api)
    response = api.put(f"/repos/{LAB}/pulls/{pr['number']}/merge", json={"merge_method": method})
    assert response.status_code == 422


def test_draft_and_read_only_merges_are_refused(api, lab):
    pr = _pull(api, head="feature/notes", title="Notes")
    draft = api.post(
        f"/repos/{LAB}/pulls",
        json={"title": "WIP", "head": "feature/two", "base": "main", "draft": True},
    ).json()
    refused = api.put(f"/repos/{LAB}/pulls/{draft['number']}/merge")
    assert refused.status_code == 405
    reader = lab.forge.create_token("octocat", access="read")
    with lab.client(reader) as client:
        assert client.put(f"/repos/{LAB}/pulls/{pr['number']}/merge").status_code == 403
