"""Demo data for the repository tools, on octo-org/demo-app (after seed_demo_collab):

- bob's fork of demo-app (default branch only), what fork_repository makes and
  get_repository shows as a fork;
- a closed, unmerged pull request from `docs/typo` (its branch kept), for
  reopen_pull_request;
- a reaction on the first review comment of the demo, for list_reactions;
- octo-org/sandbox-scratch, an empty private repository: what create_repository makes
  and what delete_repository may delete when the operator allows it.
The calculator's history (an initial commit, then "Use true division in divide") is what
get_file_blame shows for src/demo_app/calc.py.
"""

from __future__ import annotations

import time
from typing import Any

from sandbox_forge.admin.collab_seeding import ForgeTarget, forge_state, repo_named
from sandbox_forge.git.objects import Signature, TreeChange
from sandbox_forge.rest.routes.repo_admin import fork_into
from sandbox_forge.stores import issues as issues_store
from sandbox_forge.stores import pulls as pulls_store
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.reactions import Reaction, reactions_of
from sandbox_forge.stores.records import RepoRecord

DEMO_REPO = "octo-org/demo-app"
SCRATCH = "octo-org/sandbox-scratch"
TYPO_BRANCH = "docs/typo"


def _typo_branch(repo: RepoRecord) -> None:
    main = repo.git.read_ref(f"refs/heads/{repo.default_branch}")
    assert main is not None
    readme = repo.git.read_blob(repo.git.entry_at(main, "README.md").sha)  # type: ignore[union-attr]
    fixed = readme.replace(b"A tiny calculator", b"A very small calculator")
    tree = repo.git.build_tree(
        repo.git.read_commit(main).tree, [TreeChange("README.md", sha=repo.git.write_blob(fixed))]
    )
    bob = Signature("Bob Reader", "bob@users.noreply.sandbox", int(time.time()))
    sha = repo.git.create_commit(tree, [main], "Reword the README's first line\n", bob, bob)
    repo.git.update_ref(f"refs/heads/{TYPO_BRANCH}", sha, None)


def seed_demo_repos(forge: ForgeTarget, full_name: str = DEMO_REPO) -> dict[str, Any]:
    st, repo = forge_state(forge), repo_named(forge, full_name)
    fork = fork_into(st, repo, st.ensure_user("bob").login, repo.name, only_default=True)
    _typo_branch(repo)
    closed = pulls_store.create_pull(
        st, repo, "bob", "Reword the README", TYPO_BRANCH, repo.default_branch,
        "Closed for now: the wording is still being discussed.", False,
    )  # fmt: skip
    with st.lock:
        pulls_store.freeze(repo, closed)
        issues_store.set_state(closed, "closed", "alice")
        first_comment = min(collab(repo).review_comments, default=None)
        if first_comment is not None:
            reactions_of(repo, f"review_comment:{first_comment}").append(
                Reaction(st.next_id(), "alice", "rocket", repo.created_at)
            )
    scratch = st.create_repo(SCRATCH, private=True, description="Scratch space: safe to delete")
    summary = {
        "fork": fork.full_name,
        "closed_pull": closed.number,
        "review_comment_reacted": first_comment,
        "scratch": scratch.full_name,
    }
    st.extensions["demo_repos"] = summary
    return summary
