"""Reading what a commit holds, for the commit engine (`commits`) and the signed path
(`signed_commits`): tree entries at given paths (recursive listing, walked level by level
when GitHub truncates it), where a branch points, the check that a commit landed with
exactly the blobs that were sent; the branch head and whether its rules require
signatures, what changed between two heads, and the outcome of a write the branch
already holds."""

from __future__ import annotations

import asyncio

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, conflict
from github_mcp.services.shared.commit_types import (
    NO_CHANGE,
    Change,
    CommitOutcome,
    Head,
    Verification,
    WrittenFile,
)
from github_mcp.services.shared.content import git_blob_sha
from github_mcp.services.shared.github_json import GitRef, GitTreeItem, GitTreeListing
from github_mcp.services.shared.repo_facts import repo_path


async def _tree(
    github: GitHubClient, full_name: str, tree_sha: str, recursive: bool
) -> GitTreeListing:
    listing: GitTreeListing = await github.get_json(
        f"{repo_path(full_name)}/git/trees/{tree_sha}",
        params={"recursive": "1"} if recursive else None,
        immutable=True,
        repo=full_name,
    )
    return listing


async def tree_listing(
    github: GitHubClient, full_name: str, tree_sha: str, paths: set[str]
) -> dict[str, GitTreeItem]:
    """The tree entries (path, mode, type, sha) of `paths` in a tree; absent ones left out."""
    data = await _tree(github, full_name, tree_sha, True)
    found: dict[str, GitTreeItem] = {
        e["path"]: e for e in data.get("tree", []) if e["path"] in paths
    }
    if data.get("truncated"):
        # A truncated listing may miss them: walk down to each, one level at a time.
        missing = sorted(paths - set(found))
        got = await asyncio.gather(*(_walk(github, full_name, tree_sha, p) for p in missing))
        found |= {p: entry for p, entry in zip(missing, got, strict=True) if entry}
    return found


async def blob_shas(
    github: GitHubClient, full_name: str, tree_sha: str, paths: set[str]
) -> dict[str, str]:
    """Blob shas of `paths` in a tree (paths that are not blobs there are left out)."""
    listing = await tree_listing(github, full_name, tree_sha, paths)
    return {p: e["sha"] for p, e in listing.items() if e.get("type") == "blob"}


async def _walk(
    github: GitHubClient, full_name: str, tree_sha: str, path: str
) -> GitTreeItem | None:
    *dirs, name = path.split("/")
    entry: GitTreeItem | None = None
    for last, segment in [*((False, d) for d in dirs), (True, name)]:
        entries: list[GitTreeItem] = (await _tree(github, full_name, tree_sha, False)).get(
            "tree", []
        )
        entry = next((e for e in entries if e["path"] == segment), None)
        if entry is None or (not last and entry.get("type") != "tree"):
            return None
        tree_sha = entry["sha"]
    return None if entry is None else {**entry, "path": path}


def require_head(
    branch: str, head: Head, expected_head_sha: str | None, hint: str, why: str = ""
) -> None:
    """Refuse (conflict) when the branch is not at the head the caller read or a human
    approved; `why` says what a moved head would break. Nothing was written."""
    if expected_head_sha and head.commit_sha != expected_head_sha:
        raise conflict(
            f"{branch} moved from {expected_head_sha[:12]} to {head.commit_sha[:12]}"
            f"{why}; nothing was written.",
            hint=hint,
            head_sha=head.commit_sha,
        )


async def current_ref(github: GitHubClient, full_name: str, branch: str) -> str | None:
    try:
        data: GitRef = await github.request_json(
            "GET", f"{repo_path(full_name)}/git/ref/heads/{encode_path(branch)}"
        )
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:
            return None
        raise
    return data["object"]["sha"]


async def contains(github: GitHubClient, full_name: str, branch_sha: str, commit_sha: str) -> bool:
    """Whether commit_sha is in branch_sha's history (another write landed right after ours)."""
    data = await github.request_json(
        "GET", f"{repo_path(full_name)}/compare/{commit_sha}...{branch_sha}"
    )
    return data.get("status") in ("ahead", "identical")


async def verify_commit(
    github: GitHubClient,
    full_name: str,
    branch: str,
    commit_sha: str,
    branch_sha: str | None,
    actual: dict[str, str],
    changes: list[Change],
) -> tuple[Verification, list[WrittenFile]]:
    """Check the branch points at the commit (or has moved on from it) and each blob hash
    in the commit's tree matches the git hash of what we sent.

    `branch_sha` is where GitHub's answer to the ref update says the branch now points
    (read afresh when it did not say); `actual` maps paths to blob shas in the new tree."""
    ref_sha = branch_sha or await current_ref(github, full_name, branch)
    landed = ref_sha == commit_sha or (
        ref_sha is not None and await contains(github, full_name, ref_sha, commit_sha)
    )
    files, all_ok = [], landed
    for change in changes:
        data = change.data
        expected = git_blob_sha(data) if data is not None else None
        got = actual.get(change.path)
        ok = got == expected
        all_ok &= ok
        files.append(
            WrittenFile(
                path=change.path, status="deleted" if data is None else "written", sha=got, ok=ok
            )
        )
    verification = Verification(
        verified=all_ok, commit_sha=commit_sha, branch_sha=ref_sha, files_checked=len(files)
    )
    return verification, files


async def read_head(github: GitHubClient, full_name: str, branch: str) -> Head:
    """The branch's head commit and tree in one request (never cached)."""
    data = await github.request_json(
        "GET", f"{repo_path(full_name)}/branches/{encode_path(branch)}"
    )
    commit = data["commit"]
    return Head(
        branch=branch,
        commit_sha=commit["sha"],
        tree_sha=commit["commit"]["tree"]["sha"],
        protected=data.get("protected") is True,
    )


async def changed_between(
    github: GitHubClient, full_name: str, old: str, new: str, ours: str
) -> tuple[set[str], bool]:
    """Paths the commits old..new touched, and whether `ours` is one of those commits."""
    data = await github.request_json("GET", f"{repo_path(full_name)}/compare/{old}...{new}")
    touched: set[str] = set()
    for f in data.get("files", []):
        touched.add(f["filename"])
        if f.get("previous_filename"):
            touched.add(f["previous_filename"])
    listed = [c.get("sha") for c in data.get("commits", [])]
    landed = ours in listed
    if not landed and data.get("total_commits", 0) > len(listed):
        landed = await contains(github, full_name, new, ours)  # the list was cut short
    return touched, landed


async def unchanged_outcome(
    github: GitHubClient,
    full_name: str,
    head: Head,
    first_parent: str,
    rebased: list[str],
    changes: list[Change],
) -> CommitOutcome:
    """The outcome of a write the branch already holds: nothing written, the head named."""
    blobs = await blob_shas(github, full_name, head.tree_sha, {c.path for c in changes})
    verification, files = await verify_commit(
        github, full_name, head.branch, head.commit_sha, head.commit_sha, blobs, changes
    )
    for entry in files:
        entry.status = "unchanged"
    return CommitOutcome(
        commit_sha=head.commit_sha,
        branch=head.branch,
        parent_sha=first_parent,
        rebased_onto=rebased,
        verification=verification,
        files=files,
        status=NO_CHANGE,
    )


async def ruleset_requires_signatures(github: GitHubClient, full_name: str, branch: str) -> bool:
    """Whether the rulesets on `branch` require signed commits (readable by anyone who can
    read the repository). It needs only the name: a commit reads it with the head."""
    path = f"{repo_path(full_name)}/rules/branches/{encode_path(branch)}"
    try:
        rules = await github.request_json("GET", path, params={"per_page": 100})
    except GitHubMCPError as exc:
        if exc.code == ErrorCode.NOT_FOUND:  # a server without rulesets
            return False
        raise
    return any(isinstance(r, dict) and r.get("type") == "required_signatures" for r in rules)


RulesRead = bool | BaseException  # ruleset_requires_signatures's answer, read ahead


async def signatures_required(
    github: GitHubClient, full_name: str, head: Head, rulesets: RulesRead | None = None
) -> bool:
    """Whether the branch's rules require signed commits: its rulesets' rules (`rulesets`
    when read ahead) and, on a protected branch, the classic protection's setting
    (readable by admins only; otherwise taken as not required)."""
    base = repo_path(full_name)
    branch = encode_path(head.branch)

    async def ruleset_rules() -> bool:
        if rulesets is None:
            return await ruleset_requires_signatures(github, full_name, head.branch)
        if isinstance(rulesets, BaseException):
            raise rulesets
        return rulesets

    async def classic() -> bool:
        if not head.protected:
            return False
        try:
            data = await github.request_json(
                "GET", f"{base}/branches/{branch}/protection/required_signatures"
            )
        except GitHubMCPError as exc:
            if exc.code in (ErrorCode.NOT_FOUND, ErrorCode.FORBIDDEN, ErrorCode.PERMISSION_DENIED):
                return False
            raise
        return bool(isinstance(data, dict) and data.get("enabled"))

    found = await asyncio.gather(ruleset_rules(), classic())
    return any(found)
