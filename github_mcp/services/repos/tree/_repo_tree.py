"""list_repository_tree over the GitHub client: the Git Trees API as a TreeSource,
with results cached by resolved commit SHA plus the canonical arguments (§6.1)."""

from __future__ import annotations

import hashlib
import json

from github_mcp.github.client import (
    GitHubClient,
)
from github_mcp.services.repos.tree._result import TreeListing, TreeResult
from github_mcp.services.repos.tree._service import TreeEntry, build_tree
from github_mcp.services.shared.content import (
    detect_and_decode,
)
from github_mcp.services.shared.repo_facts import (
    repo_path,
    resolve_commit_sha,
)


class GitHubTreeSource:
    def __init__(self, github: GitHubClient, full_name: str) -> None:
        self.github = github
        self.full_name = full_name
        self.base = repo_path(full_name)

    async def get_tree(self, tree_sha: str, recursive: bool) -> tuple[list[TreeEntry], bool]:
        data = await self.github.get_json(
            f"{self.base}/git/trees/{tree_sha}",
            params={"recursive": "1"} if recursive else None,
            immutable=True,
            repo=self.full_name,
        )
        entries = [
            TreeEntry(
                path=e["path"],
                type=e["type"],
                sha=e["sha"],
                size=e.get("size"),
                mode=e.get("mode", ""),
            )
            for e in data.get("tree", [])
        ]
        return entries, bool(data.get("truncated"))

    async def get_blob_text(self, blob_sha: str) -> str:
        # Blobs are content-addressed: cached without expiry, shared by every repo.
        slot = await self.github.cache.reserve("blob", blob_sha, ttl=None)
        if slot.found:
            return str(slot.value)
        try:
            data, _, _ = await self.github.read_raw(
                f"{self.base}/git/blobs/{blob_sha}", max_bytes=512 * 1024
            )
            text = detect_and_decode(data, truncated=False).text or ""
        except BaseException as exc:
            slot.fail(exc)
            raise
        await slot.fill(text)
        return text


async def list_tree(
    github: GitHubClient,
    full_name: str,
    ref: str,
    *,
    path: str = "",
    recursive: bool = True,
    ignore_patterns: list[str] | None = None,
    force: bool = False,
    limit: int | None = None,
    cursor: str | None = None,
) -> TreeResult:
    """The filtered listing at the commit `ref` resolves to, cached by that commit."""
    commit_sha = await resolve_commit_sha(github, full_name, ref)
    canonical = json.dumps(
        [path, recursive, list(ignore_patterns or []), force, limit, cursor], sort_keys=True
    )
    key = f"{full_name.lower()}:{commit_sha}:{hashlib.sha256(canonical.encode()).hexdigest()}"
    hit, cached = github.cache.lookup("tree", key)
    if hit:
        listing: TreeListing = cached
        return listing.result(full_name, ref, commit_sha, cache_hit=True)
    commit = await github.get_json(
        f"{repo_path(full_name)}/git/commits/{commit_sha}", immutable=True, repo=full_name
    )
    listing = await build_tree(
        GitHubTreeSource(github, full_name),
        commit["tree"]["sha"],
        path=path,
        recursive=recursive,
        ignore_patterns=ignore_patterns or (),
        force=force,
        limit=limit,
        cursor=cursor,
    )
    github.cache.set("tree", key, listing, ttl=None, repo=full_name)
    return listing.result(full_name, ref, commit_sha, cache_hit=False)
