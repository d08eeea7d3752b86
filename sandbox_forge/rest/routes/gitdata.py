"""The Git Database API: commits, trees and blobs."""

from __future__ import annotations

import base64
import binascii
from datetime import datetime
from typing import Any, TypeGuard

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.git.objects import now_signature
from sandbox_forge.git.store import SHA_RE, GitRepo, Signature, TreeChange, TreeEntry
from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, not_found
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.shapes.git import git_commit
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

RAW_TYPE = "application/vnd.github.raw"
VALID_MODES = {
    "100644": "blob",
    "100755": "blob",
    "120000": "blob",
    "040000": "tree",
    "160000": "commit",
}


def b64_lines(data: bytes) -> str:
    """GitHub's base64: 60 characters per line, each ending in a newline."""
    text = base64.b64encode(data).decode()
    return "".join(text[i : i + 60] + "\n" for i in range(0, len(text), 60))


def raw_response(data: bytes, etag_sha: str) -> Response:
    return Response(
        data,
        media_type=RAW_TYPE,
        headers={"etag": f'"{etag_sha}"', "x-github-media-type": "github.v3; param=raw"},
    )


def default_signature(ctx: Ctx) -> Signature:
    login = ctx.principal.login or "sandbox"
    user = ctx.state.user(login)
    email = (user.email if user else None) or f"{login}@users.noreply.sandbox"
    return now_signature((user.name if user else None) or login, email)


def parse_person(value: Any, field: str, default: Signature) -> Signature:
    """An author/committer object from a request body, as GitHub validates it."""
    if value is None:
        return default
    if not isinstance(value, dict):
        raise ApiError(422, f"Invalid request.\n\nFor 'properties/{field}', is not an object.")
    name, email = value.get("name"), value.get("email")
    if not isinstance(name, str) or not name:
        raise missing_field("name")
    if not isinstance(email, str) or not email:
        raise missing_field("email")
    timestamp, tz = default.timestamp, "+0000"
    if value.get("date") is not None:
        try:
            when = datetime.fromisoformat(str(value["date"]).replace("Z", "+00:00"))
        except ValueError:
            raise ApiError(
                422, f"Invalid request.\n\n{value['date']!r} is not a valid date-time."
            ) from None
        timestamp = int(when.timestamp())
        offset = when.utcoffset()
        if offset is not None:
            minutes = int(offset.total_seconds() // 60)
            sign = "+" if minutes >= 0 else "-"
            tz = f"{sign}{abs(minutes) // 60:02d}{abs(minutes) % 60:02d}"
    return Signature(name=name, email=email, timestamp=timestamp, tz=tz)


# --- commits ------------------------------------------------------------------------------


@endpoint
def get_git_commit(ctx: Ctx):
    repo = ctx.repo()
    sha = ctx.params["commit_sha"]
    if repo.git.object_type(sha) != "commit":
        raise not_found()
    full = repo.git.resolve_commit(sha)
    return json_response(git_commit(ctx.urls, repo, repo.git.read_commit(full or sha)))


@endpoint
def create_git_commit(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    message, tree, parents = body.get("message"), body.get("tree"), body.get("parents", [])
    if not isinstance(message, str):
        raise missing_field("message")
    if not isinstance(tree, str) or not tree:
        raise missing_field("tree")
    if repo.git.object_type(tree) != "tree" or not SHA_RE.match(tree):
        raise ApiError(422, "Tree SHA does not exist")
    if not isinstance(parents, list) or not all(isinstance(p, str) for p in parents):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/parents', is not an array.")
    for parent in parents:
        if not SHA_RE.match(parent) or repo.git.object_type(parent) != "commit":
            raise ApiError(422, "Parent SHA does not exist or is not a commit object")
    author = parse_person(body.get("author"), "author", default_signature(ctx))
    committer = parse_person(body.get("committer"), "committer", author)
    signature = body.get("signature")
    if signature is not None and not isinstance(signature, str):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/signature', is not a string.")
    sha = repo.git.create_commit(tree, parents, message, author, committer, signature)
    data = git_commit(ctx.urls, repo, repo.git.read_commit(sha))
    return json_response(data, status=201, headers={"location": data["url"]})


# --- trees --------------------------------------------------------------------------------


def tree_entry_json(ctx: Ctx, repo: RepoRecord, entry: TreeEntry) -> dict[str, Any]:
    api = ctx.urls.repo(repo.full_name)
    item: dict[str, Any] = {
        "path": entry.path,
        "mode": entry.mode,
        "type": entry.type,
        "sha": entry.sha,
    }
    if entry.type == "blob":
        item["size"] = entry.size or 0
        item["url"] = f"{api}/git/blobs/{entry.sha}"
    elif entry.type == "tree":
        item["url"] = f"{api}/git/trees/{entry.sha}"
    return item


def tree_json(ctx: Ctx, repo: RepoRecord, tree_sha: str, recursive: bool) -> dict[str, Any]:
    entries = repo.git.ls_tree(tree_sha, recursive=recursive)
    limit = ctx.state.tree_truncate_limit
    truncated = len(entries) > limit
    return {
        "sha": tree_sha,
        "url": f"{ctx.urls.repo(repo.full_name)}/git/trees/{tree_sha}",
        "tree": [tree_entry_json(ctx, repo, e) for e in entries[:limit]],
        "truncated": truncated,
    }


@endpoint
def get_tree(ctx: Ctx):
    repo = ctx.repo()
    tree = repo.git.resolve_tree(ctx.params["tree_sha"])
    if tree is None:
        raise not_found()
    # GitHub recurses when the parameter is present at all, whatever its value.
    return json_response(tree_json(ctx, repo, tree, "recursive" in ctx.query))


def _valid_path(path: Any) -> TypeGuard[str]:
    if not isinstance(path, str) or not path or "\0" in path:
        return False
    return all(part not in ("", ".", "..", ".git") for part in path.split("/"))


def _tree_change(git: GitRepo, item: Any, index: int) -> TreeChange:
    if not isinstance(item, dict):
        raise ApiError(422, f"Invalid request.\n\nFor 'items', {item!r} is not an object.")
    path, mode = item.get("path"), item.get("mode", "100644")
    if not _valid_path(path):
        raise ApiError(422, "tree.path contains a malformed path component")
    if mode not in VALID_MODES:
        raise ApiError(422, f"tree.mode {mode} is not a valid mode")
    if "sha" in item and "content" in item:
        raise ApiError(
            422,
            "Must supply either tree.sha or tree.content. "
            "Request will be rejected if both are present.",
        )
    if "content" in item:
        content = item["content"]
        if not isinstance(content, str):
            raise ApiError(422, "Invalid request.\n\nFor 'properties/content', is not a string.")
        return TreeChange(path, mode, git.write_blob(content.encode()))
    return _by_sha(git, item, path, mode)


def _by_sha(git: GitRepo, item: dict[str, Any], path: str, mode: str) -> TreeChange:
    """A tree entry given by its object's SHA (null: delete the path)."""
    sha = item.get("sha")
    if sha is None:
        if "sha" not in item:
            raise ApiError(422, "Must supply either tree.sha or tree.content.")
        return TreeChange(path, mode, None)
    expected = VALID_MODES[mode]
    if not isinstance(sha, str) or not SHA_RE.match(sha):
        raise ApiError(422, f"tree.sha {sha} is not a valid {expected}")
    if expected != "commit" and git.object_type(sha) != expected:
        raise ApiError(422, f"tree.sha {sha} is not a valid {expected}")
    return TreeChange(path, mode, sha)


@endpoint
def create_tree(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    items = body.get("tree")
    if items is None:
        raise missing_field("tree")
    if not isinstance(items, list):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/tree', is not an array.")
    base = body.get("base_tree")
    if base is not None:
        if not isinstance(base, str) or repo.git.resolve_tree(base) is None:
            raise ApiError(422, "base_tree is not a valid tree oid")
        base = repo.git.resolve_tree(base)
    changes = [_tree_change(repo.git, item, i) for i, item in enumerate(items)]
    sha = repo.git.build_tree(base, changes)
    data = tree_json(ctx, repo, sha, recursive=False)
    return json_response(data, status=201, headers={"location": data["url"]})


# --- blobs --------------------------------------------------------------------------------


@endpoint
def get_blob(ctx: Ctx):
    repo = ctx.repo()
    sha = ctx.params["file_sha"]
    if not SHA_RE.match(sha) or repo.git.object_type(sha) != "blob":
        raise not_found()
    data = repo.git.read_blob(sha)
    if ctx.media.param == "raw":
        return raw_response(data, sha)
    return json_response(
        {
            "sha": sha,
            "node_id": base64.b64encode(f"04:Blob{repo.id}:{sha}".encode()).decode(),
            "size": len(data),
            "url": f"{ctx.urls.repo(repo.full_name)}/git/blobs/{sha}",
            "content": b64_lines(data),
            "encoding": "base64",
        },
        headers={"etag": f'"{sha}"'},
    )


@endpoint
def create_blob(ctx: Ctx):
    repo = ctx.repo(write=True)
    body = ctx.json()
    content, encoding = body.get("content"), body.get("encoding", "utf-8")
    if not isinstance(content, str):
        raise missing_field("content")
    if encoding in ("utf-8", "utf8"):
        data = content.encode()
    elif encoding == "base64":
        try:
            data = base64.b64decode("".join(content.split()), validate=True)
        except (binascii.Error, ValueError):
            raise ApiError(422, "Invalid request.\n\ncontent is not valid Base64.") from None
    else:
        raise ApiError(422, f'encoding must be "utf-8" or "base64", not {encoding!r}')
    sha = repo.git.write_blob(data)
    url = f"{ctx.urls.repo(repo.full_name)}/git/blobs/{sha}"
    return json_response({"url": url, "sha": sha}, status=201, headers={"location": url})


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/git"
    return [
        Route(f"{base}/commits/{{commit_sha}}", get_git_commit, methods=["GET"]),
        Route(f"{base}/commits", create_git_commit, methods=["POST"]),
        Route(f"{base}/trees/{{tree_sha:path}}", get_tree, methods=["GET"]),
        Route(f"{base}/trees", create_tree, methods=["POST"]),
        Route(f"{base}/blobs/{{file_sha}}", get_blob, methods=["GET"]),
        Route(f"{base}/blobs", create_blob, methods=["POST"]),
    ]
