"""JSON shapes for git objects: git-commit, commit (REST), diff entries, refs, trees."""

from __future__ import annotations

import base64
from typing import Any
from urllib.parse import quote

from sandbox_forge.git.objects import forge_signed
from sandbox_forge.git.store import CommitInfo, FileDiff, Signature
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def commit_node_id(repo: RepoRecord, sha: str) -> str:
    return base64.b64encode(f"06:Commit{repo.id}:{sha}".encode()).decode()


def git_person(sig: Signature) -> dict[str, str]:
    return {"name": sig.name, "email": sig.email, "date": iso(sig.timestamp)}


def verification(info: CommitInfo) -> dict[str, Any]:
    if not info.signature:
        return {
            "verified": False,
            "reason": "unsigned",
            "signature": None,
            "payload": None,
            "verified_at": None,
        }
    trusted = forge_signed(info)
    return {
        "verified": trusted,
        "reason": "valid" if trusted else "unknown_key",
        "signature": info.signature,
        "payload": None,
        "verified_at": iso(info.committer.timestamp) if trusted else None,
    }


def message_of(info: CommitInfo) -> str:
    # GitHub shows messages without the trailing newline git itself stores.
    return info.message.rstrip("\n")


def git_commit(urls: Urls, repo: RepoRecord, info: CommitInfo) -> dict[str, Any]:
    """The Git Database API's commit (GET/POST /git/commits)."""
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    return {
        "sha": info.sha,
        "node_id": commit_node_id(repo, info.sha),
        "url": f"{api}/git/commits/{info.sha}",
        "html_url": f"{html}/commit/{info.sha}",
        "author": git_person(info.author),
        "committer": git_person(info.committer),
        "tree": {"sha": info.tree, "url": f"{api}/git/trees/{info.tree}"},
        "message": message_of(info),
        "parents": [
            {"sha": p, "url": f"{api}/git/commits/{p}", "html_url": f"{html}/commit/{p}"}
            for p in info.parents
        ],
        "verification": verification(info),
    }


def _account(state: ForgeState, urls: Urls, sig: Signature) -> dict[str, Any] | None:
    user = state.user_by_email(sig.email) if sig.email else None
    return simple_user(urls, user) if user else None


def rest_commit(
    state: ForgeState,
    urls: Urls,
    repo: RepoRecord,
    info: CommitInfo,
    diffs: list[FileDiff] | None = None,
) -> dict[str, Any]:
    """The REST commit shape (GET /commits, /commits/{ref}); with files when diffs given."""
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    data: dict[str, Any] = {
        "sha": info.sha,
        "node_id": commit_node_id(repo, info.sha),
        "commit": {
            "author": git_person(info.author),
            "committer": git_person(info.committer),
            "message": message_of(info),
            "tree": {"sha": info.tree, "url": f"{api}/git/trees/{info.tree}"},
            "url": f"{api}/git/commits/{info.sha}",
            "comment_count": 0,
            "verification": verification(info),
        },
        "url": f"{api}/commits/{info.sha}",
        "html_url": f"{html}/commit/{info.sha}",
        "comments_url": f"{api}/commits/{info.sha}/comments",
        "author": _account(state, urls, info.author),
        "committer": _account(state, urls, info.committer),
        "parents": [
            {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"{html}/commit/{p}"}
            for p in info.parents
        ],
    }
    if diffs is not None:
        additions = sum(d.additions for d in diffs)
        deletions = sum(d.deletions for d in diffs)
        data["stats"] = {
            "total": additions + deletions,
            "additions": additions,
            "deletions": deletions,
        }
        data["files"] = [diff_entry(urls, repo, info.sha, d) for d in diffs]
    return data


def diff_entry(urls: Urls, repo: RepoRecord, head: str, diff: FileDiff) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = urls.repo_html(repo.full_name)
    path = quote(diff.path)
    ref = head if diff.status != "removed" else head + "~1"
    entry: dict[str, Any] = {
        "sha": diff.new_sha or diff.old_sha,
        "filename": diff.path,
        "status": diff.status,
        "additions": diff.additions,
        "deletions": diff.deletions,
        "changes": diff.additions + diff.deletions,
        "blob_url": f"{html}/blob/{ref}/{path}",
        "raw_url": f"{html}/raw/{ref}/{path}",
        "contents_url": f"{api}/contents/{path}?ref={head}",
    }
    if diff.patch is not None:
        entry["patch"] = diff.patch
    if diff.old_path and diff.status in ("renamed", "copied"):
        entry["previous_filename"] = diff.old_path
    return entry


def git_ref(urls: Urls, repo: RepoRecord, ref: str, sha: str, otype: str) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    kind = "tags" if otype == "tag" else "commits" if otype == "commit" else f"{otype}s"
    return {
        "ref": ref,
        "node_id": base64.b64encode(f"03:Ref{repo.id}:{ref}".encode()).decode(),
        "url": f"{api}/git/{quote(ref)}",
        "object": {"sha": sha, "type": otype, "url": f"{api}/git/{kind}/{sha}"},
    }
