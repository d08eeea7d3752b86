"""Demo data beyond code review, on octo-org/demo-app (after seed_demo_collab): releases and
tags, so that `make run` shows each of these tools with something to read.

- v0.1.0: an annotated tag on the first commit and its published release (the latest);
- a pull request merged into main by rebase (its commit is main's "Add CI and release
  workflows"), which generated release notes list;
- v0.2.0-rc.1: a lightweight tag and a published prerelease;
- a draft release for v0.2.0, not yet tagged, as GitHub keeps drafts;
- labels with GitHub's default colours and descriptions, and two of the project's own;
- teams in octo-org (alice maintains one, is a member of the other) and stars: alice and
  octocat starred demo-app;
- octocat's gists: a public snippet and a secret note;
- reactions on the divide() bug: alice's +1 and bob's eyes.
"""

from __future__ import annotations

from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.rules.releases import publish
from sandbox_forge.stores import gists as gists_store
from sandbox_forge.stores import issues as issues_store
from sandbox_forge.stores import pulls as pulls_store
from sandbox_forge.stores import releases as releases_store
from sandbox_forge.stores import social
from sandbox_forge.stores.collab import Pull, collab
from sandbox_forge.stores.lookups import ensure_label
from sandbox_forge.stores.reactions import Reaction, reactions_of
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

DEMO_REPO = "octo-org/demo-app"
WORKFLOWS_COMMIT = "Add CI and release workflows"
LABELS = {  # name: (colour, description)
    "bug": ("d73a4a", "Something isn't working"),
    "enhancement": ("a2eeef", "New feature or request"),
    "documentation": ("0075ca", "Improvements or additions to documentation"),
    "good first issue": ("7057ff", "Good for newcomers"),
    "area/web": ("fbca04", "The JavaScript module under web/"),
}


def _first_and_workflows(repo: RepoRecord) -> tuple[str, str]:
    history = repo.git.rev_list([repo.default_branch], extra=["--reverse"])
    workflows = next(
        sha for sha in history if repo.git.read_commit(sha).message.startswith(WORKFLOWS_COMMIT)
    )
    return history[0], workflows


def _merged_pull(st: ForgeState, repo: RepoRecord, base: str, merged: str) -> int:
    """A closed PR whose one commit landed on main by rebase (GitHub keeps it merged)."""
    branch = "ci/add-workflows"  # deleted after the merge, as GitHub offers
    with st.lock:
        pull = Pull(head_ref=branch, base_ref=repo.default_branch, head_sha=merged, base_sha=base)
        issue = issues_store.new_issue(
            st,
            repo,
            "alice",
            "Add CI and release workflows",
            "Runs the Python and JavaScript tests on every push; tags publish releases.",
            pull=pull,
        )
        collab(repo).issues[issue.number] = issue
        repo.git.force_ref(f"refs/pull/{issue.number}/head", merged)
        pulls_store.mark_merged(repo, issue, merged, base, "octocat")
    return issue.number


def _release(
    st: ForgeState, repo: RepoRecord, tag: str, target: str, **fields: Any
) -> releases_store.Release:
    release = releases_store.Release(
        id=st.next_id(), tag_name=tag, target_commitish=target, author="octocat", **fields
    )
    releases_store.releases(repo)[release.id] = release
    return release


def seed_demo_releases(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    first, workflows = _first_and_workflows(repo)
    merged = _merged_pull(st, repo, first, workflows)
    releases_store.create_annotated_tag(
        repo,
        "v0.1.0",
        first,
        "First calculator: add and divide",
        ("The Octocat", "octocat@users.noreply.sandbox"),
    )
    main = repo.default_branch
    stable = _release(
        st, repo, "v0.1.0", main, name="v0.1.0", body="First release: `add` and `divide`."
    )
    publish(st, repo, stable, "true")
    repo.git.update_ref("refs/tags/v0.2.0-rc.1", workflows, None)
    candidate = _release(
        st,
        repo,
        "v0.2.0-rc.1",
        main,
        name="v0.2.0 release candidate",
        body="CI on every push.",
        prerelease=True,
    )
    publish(st, repo, candidate, "true")
    draft = _release(
        st, repo, "v0.2.0", main, name="v0.2.0", body="Draft: notes still to write.", draft=True
    )
    summary = {
        "merged_pull": merged,
        "latest": stable.tag_name,
        "prerelease": candidate.tag_name,
        "draft": {"id": draft.id, "tag": draft.tag_name},
        "tags": ["v0.1.0", "v0.2.0-rc.1"],
    }
    st.extensions["breadth_demo"] = summary
    return summary


def seed_demo_labels(forge: ForgeTarget, full_name: str = DEMO_REPO) -> list[str]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    with st.lock:
        for name, (color, description) in LABELS.items():
            label = ensure_label(st, repo, name)
            label.color, label.description = color, description
            label.default = name in ("bug", "enhancement", "documentation", "good first issue")
    return sorted(LABELS)


def seed_demo_people_extras(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    """Teams (their members are members of octo-org: alice) and stars; after seed_demo_people."""
    st, repo = forge_state(forge), repo_named(forge, full_name)
    maintainers = social.add_team(
        st, repo.owner, "Maintainers", {"alice": "maintainer"}, "Review and release demo-app"
    )
    web = social.add_team(st, repo.owner, "Web", {"alice": "member"}, "The web/ module")
    with st.lock:
        for login in ("alice", "octocat"):
            social.stars(st, login)[repo.full_name.lower()] = repo.created_at
    snippet = gists_store.create_gist(
        st,
        "octocat",
        {"divide.py": "def divide(a: float, b: float) -> float:\n    return a / b\n"},
        "True division for demo-app's calculator",
        public=True,
    )
    note = gists_store.create_gist(
        st,
        "octocat",
        {"todo.md": "- cut v0.2.0\n- write the release notes\n"},
        "Release to-do",
        public=False,
    )
    bug = st.extensions["collab_demo"]["issues"]["bug"]
    # A review requested from a team: what request_pr_reviewers shows and withdraws.
    stacked = collab(repo).issues[st.extensions["collab_demo"]["pulls"]["stacked"]["number"]]
    assert stacked.pull is not None
    with st.lock:
        stacked.pull.requested_teams.append(web.slug)
    with st.lock:
        for login, content in (("alice", "+1"), ("bob", "eyes")):
            reactions_of(repo, f"issue:{bug}").append(
                Reaction(st.next_id(), login, content, repo.created_at)
            )
    summary = {
        "teams": [maintainers.slug, web.slug],
        "stargazers": ["alice", "octocat"],
        "gists": {"public": snippet.id, "secret": note.id},
    }
    st.extensions["breadth_people"] = summary
    return summary
