"""The Contents API: read files and directories, create, update and delete files."""

from __future__ import annotations

import base64
import binascii
import posixpath
from typing import Any
from urllib.parse import quote

from starlette.routing import Route

from sandbox_forge.git.pulls import web_flow_signature
from sandbox_forge.git.store import FORGE_SIGNATURE, TreeChange, TreeEntry
from sandbox_forge.kernel.errors import ApiError, json_response, missing_field, not_found
from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.rest.auth import repo_role
from sandbox_forge.rest.routes.gitdata import (
    b64_lines,
    default_signature,
    parse_person,
    raw_response,
)
from sandbox_forge.rest.shapes.git import git_commit
from sandbox_forge.rules.enforce import check_update, refuse_if
from sandbox_forge.stores.records import RefUpdate, RepoRecord
from sandbox_forge.stores.state import ForgeState

INLINE_LIMIT = 1024 * 1024  # above this GitHub returns encoding "none" and no content
CAS_ATTEMPTS = 10
TYPE_OF_MODE = {"040000": "dir", "120000": "symlink", "160000": "submodule"}


def _clean_path(raw: str) -> str:
    path = raw.strip("/")
    if any(part in (".", "..") for part in path.split("/")) or "\0" in path:
        raise not_found()
    return path


def _resolve_ref(repo: RepoRecord, ref: str | None) -> str:
    if not repo.git.has_refs():
        raise not_found("This repository is empty.")
    wanted = ref or repo.default_branch
    sha = repo.git.resolve_commit(wanted)
    if sha is None:
        raise not_found(f"No commit found for the ref {wanted}")
    return sha


def _links(ctx: Ctx, repo: RepoRecord, entry_type: str, path: str, sha: str, ref: str) -> dict:
    api = ctx.urls.repo(repo.full_name)
    html = ctx.urls.repo_html(repo.full_name)
    qpath = quote(path)
    kind = "trees" if entry_type == "dir" else "blobs"
    html_kind = "tree" if entry_type == "dir" else "blob"
    self_url = f"{api}/contents/{qpath}?ref={quote(ref)}"
    git_url = f"{api}/git/{kind}/{sha}"
    html_url = f"{html}/{html_kind}/{quote(ref)}/{qpath}"
    return {
        "url": self_url,
        "html_url": html_url,
        "git_url": git_url,
        "download_url": f"{html}/raw/{quote(ref)}/{qpath}" if entry_type == "file" else None,
        "_links": {"self": self_url, "git": git_url, "html": html_url},
    }


def entry_json(ctx: Ctx, repo: RepoRecord, entry: TreeEntry, ref: str) -> dict[str, Any]:
    """A directory listing item, or a file's metadata without its content."""
    entry_type = TYPE_OF_MODE.get(entry.mode, "file")
    return {
        "type": entry_type,
        "size": entry.size or 0,
        "name": posixpath.basename(entry.path),
        "path": entry.path,
        "sha": entry.sha,
        **_links(ctx, repo, entry_type, entry.path, entry.sha, ref),
    }


def _file_json(ctx: Ctx, repo: RepoRecord, entry: TreeEntry, ref: str, data: bytes) -> dict:
    item = entry_json(ctx, repo, entry, ref)
    item["type"] = "file"
    if len(data) > INLINE_LIMIT:
        item.update(content="", encoding="none")
    else:
        item.update(content=b64_lines(data), encoding="base64")
    return item


def _submodule_url(repo: RepoRecord, commit: str, path: str) -> str | None:
    out = repo.git.run(
        "config",
        "--blob",
        f"{commit}:.gitmodules",
        "--get-regexp",
        r"submodule\..*\.path",
        check=False,
    ).decode()
    for line in out.splitlines():
        key, _, value = line.partition(" ")
        if value == path:
            name = key[len("submodule.") : -len(".path")]
            url = (
                repo.git.run(
                    "config",
                    "--blob",
                    f"{commit}:.gitmodules",
                    f"submodule.{name}.url",
                    check=False,
                )
                .decode()
                .strip()
            )
            return url or None
    return None


@endpoint
def get_contents(ctx: Ctx):
    repo = ctx.repo()
    path = _clean_path(ctx.params.get("path", ""))
    ref = ctx.query.get("ref") or repo.default_branch
    commit = _resolve_ref(repo, ctx.query.get("ref"))
    entry = repo.git.entry_at(commit, path)
    if entry is None:
        raise not_found()
    if entry.type == "tree":
        children = repo.git.ls_tree(commit, f"{path}/" if path else "")
        items = [entry_json(ctx, repo, child, ref) for child in children]
        if ctx.media.param == "object":  # the directory itself, its listing in "entries"
            return _object_response({**entry_json(ctx, repo, entry, ref), "entries": items})
        return json_response(items)
    if entry.mode == "120000":
        target = repo.git.read_blob(entry.sha).decode("utf-8", "replace")
        resolved = posixpath.normpath(posixpath.join(posixpath.dirname(path), target))
        followed = repo.git.entry_at(commit, resolved) if not resolved.startswith("..") else None
        if followed is not None and followed.type == "blob" and followed.mode != "120000":
            entry = followed  # GitHub serves the target file when it is in the repository
        else:
            item = entry_json(ctx, repo, entry, ref)
            item["target"] = target
            return json_response(item)
    if entry.mode == "160000":
        item = entry_json(ctx, repo, entry, ref)
        item["submodule_git_url"] = _submodule_url(repo, commit, path)
        item["download_url"] = None
        return json_response(item)
    data = repo.git.read_blob(entry.sha)
    if ctx.media.param == "raw":
        return raw_response(data, entry.sha)
    if ctx.media.param == "object":
        return _object_response(_file_json(ctx, repo, entry, ref, data))
    return json_response(_file_json(ctx, repo, entry, ref, data))


def _object_response(data: dict[str, Any]):
    response = json_response(data)
    response.headers["content-type"] = "application/vnd.github.object; charset=utf-8"
    response.headers["x-github-media-type"] = "github.v3; param=object; format=json"
    return response


# --- writes -------------------------------------------------------------------------------


def _branch_head(repo: RepoRecord, branch: str) -> str | None:
    """The branch's head; None only for the first commit of an empty repository."""
    head = repo.git.read_ref(f"refs/heads/{branch}")
    if head is None and repo.git.has_refs():
        raise not_found(f"Branch {branch} not found")
    return head


def _check_sha(path: str, current: TreeEntry | None, given: Any, required: bool) -> None:
    """The Contents API precondition: 422 when sha is missing, 409 when it is stale."""
    if current is None:
        if required:
            raise not_found()
        return
    if given is None or given == "":
        raise missing_field("sha")
    if not isinstance(given, str) or given != current.sha:
        raise ApiError(409, f"{path} does not match {given}")


def _enforce_rules(
    ctx: Ctx, repo: RepoRecord, ref: str, head: str | None, sha: str, deleting: bool
) -> None:
    """Repository rules refuse the commit with GitHub's 409 before the branch moves."""
    doc = "delete-a-file" if deleting else "create-or-update-file-contents"
    found = check_update(repo, ref, head, sha, repo_role(ctx.principal, repo))
    refuse_if(found, 409, f"https://docs.github.com/rest/repos/contents#{doc}")


def _commit_change(ctx: Ctx, repo: RepoRecord, body: dict, path: str, blob: str | None):
    """Commit one file change onto the branch; retried when the branch moves meanwhile."""
    message = body.get("message")
    if not isinstance(message, str) or not message:
        raise missing_field("message")
    branch = body.get("branch") or repo.default_branch
    if not isinstance(branch, str):
        raise ApiError(422, "Invalid request.\n\nFor 'properties/branch', is not a string.")
    committer = parse_person(body.get("committer"), "committer", default_signature(ctx))
    author = parse_person(body.get("author"), "author", committer)
    signature = None
    if ctx.principal.is_installation and not ({"author", "committer"} & body.keys()):
        # GitHub signs a GitHub App's own commits (no custom author or committer): the
        # App authors them and web-flow commits them, verified.
        committer, signature = web_flow_signature(), FORGE_SIGNATURE
    for _ in range(CAS_ATTEMPTS):
        head = _branch_head(repo, branch)
        current = repo.git.entry_at(head, path) if head else None
        _check_sha(path, current, body.get("sha"), required=blob is None)
        if current is not None and current.type != "blob":
            raise ApiError(422, f"{path} is a directory")
        existed = current is not None
        mode = current.mode if current is not None else "100644"
        base_tree = repo.git.read_commit(head).tree if head else None
        tree = repo.git.build_tree(base_tree, [TreeChange(path, mode, blob)])
        sha = repo.git.create_commit(
            tree, [head] if head else [], message, author, committer, signature
        )
        ref = f"refs/heads/{branch}"
        _enforce_rules(ctx, repo, ref, head, sha, deleting=blob is None)
        if repo.git.update_ref(ref, sha, head):
            ctx.state.fire_ref_update(RefUpdate(repo.full_name, ref, head, sha, "contents"))
            return sha, existed, branch
    raise ApiError(409, f"{path} could not be updated: {branch} kept moving")


@endpoint
def put_contents(ctx: Ctx):
    repo = ctx.repo(write=True)
    path = _clean_path(ctx.params["path"])
    if not path:
        raise not_found()
    body = ctx.json()
    content = body.get("content")
    if not isinstance(content, str):
        raise missing_field("content")
    try:
        data = base64.b64decode("".join(content.split()), validate=True)
    except (binascii.Error, ValueError):
        raise ApiError(422, "content is not valid Base64") from None
    blob = repo.git.write_blob(data)
    sha, existed, branch = _commit_change(ctx, repo, body, path, blob)
    entry = repo.git.entry_at(sha, path)
    assert entry is not None
    result = {
        "content": entry_json(ctx, repo, entry, branch),
        "commit": git_commit(ctx.urls, repo, repo.git.read_commit(sha)),
    }
    return json_response(result, status=200 if existed else 201)


@endpoint
def delete_contents(ctx: Ctx):
    repo = ctx.repo(write=True)
    path = _clean_path(ctx.params["path"])
    if not path:
        raise not_found()
    sha, _existed, _branch = _commit_change(ctx, repo, ctx.json(), path, None)
    result = {"content": None, "commit": git_commit(ctx.urls, repo, repo.git.read_commit(sha))}
    return json_response(result)


@endpoint
def download_raw(ctx: Ctx):
    """{web}/{owner}/{repo}/raw/{ref}/{path}: the download_url of a file."""
    repo = ctx.repo()
    rest = ctx.params["rest"]
    parts = rest.split("/")
    for cut in range(1, len(parts)):  # refs may contain "/": try the shortest first
        commit = repo.git.resolve_commit("/".join(parts[:cut]))
        if commit is None:
            continue
        entry = repo.git.entry_at(commit, "/".join(parts[cut:]))
        if entry is not None and entry.type == "blob":
            return raw_response(repo.git.read_blob(entry.sha), entry.sha)
    raise not_found()


def routes(state: ForgeState) -> list[Route]:
    base = "/repos/{owner}/{repo}/contents"
    return [
        Route(base, get_contents, methods=["GET"]),
        Route(f"{base}/", get_contents, methods=["GET"]),
        Route(f"{base}/{{path:path}}", get_contents, methods=["GET"]),
        Route(f"{base}/{{path:path}}", put_contents, methods=["PUT"]),
        Route(f"{base}/{{path:path}}", delete_contents, methods=["DELETE"]),
        Route("/{owner}/{repo}/raw/{rest:path}", download_raw, methods=["GET"]),
    ]
