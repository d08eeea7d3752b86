"""Publishing a release: its tag is a ref move, so the repository's tag rules apply."""

from __future__ import annotations

import time

from sandbox_forge.kernel.errors import validation_failed
from sandbox_forge.rules.enforce import check_update, rules_message
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.releases import Release, tag_commit
from sandbox_forge.stores.state import ForgeState


def publish(
    state: ForgeState,
    repo: RepoRecord,
    release: Release,
    make_latest: str,
    role: str | None = "admin",
) -> None:
    """Publish: the tag is created at target_commitish if it does not exist yet, unless
    the repository's tag rules refuse it for a caller of `role` (GitHub's 422 names them
    as a `pre_receive` error)."""
    if tag_commit(repo, release.tag_name) is None:
        sha = repo.git.resolve_commit(release.target_commitish)
        if sha is None or not repo.git.valid_ref_name(f"refs/tags/{release.tag_name}"):
            raise validation_failed(
                {"resource": "Release", "code": "invalid", "field": "target_commitish"}
            )
        ref = f"refs/tags/{release.tag_name}"
        found = check_update(repo, ref, None, sha, role)
        if found.rules:
            message = "pre_receive " + rules_message(found.rules)
            raise validation_failed(
                {
                    "resource": "Release",
                    "code": "custom",
                    "field": "pre_receive",
                    "message": message,
                }
            )
        repo.git.update_ref(ref, sha, None)
    release.draft = False
    release.published_at = release.updated_at = time.time()
    if make_latest == "true" and not release.prerelease:
        release.latest_at = release.published_at
