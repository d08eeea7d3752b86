"""GraphQL views of git objects: commits (re-exported by views.py, which builds on this
module), blobs (with GitHub's text rules), trees, tree entries and annotated tags, plus
`Repository.object(oid:, expression:)`."""

from __future__ import annotations

import base64
from typing import Any

from sandbox_forge.graphql.context import Context
from sandbox_forge.kernel.formats import iso
from sandbox_forge.stores.records import RepoRecord

# GitHub cuts Blob.text after this many bytes and sets isTruncated.
BLOB_TEXT_LIMIT = 512_000
# Like git: a NUL among the first 8000 bytes makes a blob binary.
BINARY_SNIFF = 8000


class CommitView:
    typename = "Commit"

    def __init__(self, ctx: Context, repo: RepoRecord, sha: str):
        self.repo = repo
        info = repo.git.read_commit(sha)
        headline, _, rest = info.message.rstrip("\n").partition("\n")
        self.oid = sha
        self.abbreviatedOid = sha[:7]
        self.id = base64.b64encode(f"06:Commit{repo.id}:{sha}".encode()).decode()
        self.url = self.commitUrl = f"{ctx.urls.repo_html(repo.full_name)}/commit/{sha}"
        self.message = info.message.rstrip("\n")
        self.messageHeadline = headline
        self.messageBody = rest.strip("\n")
        self.committedDate = iso(info.committer.timestamp)
        self.ctx, self._tree = ctx, info.tree

    def tree(self, info: Any) -> Any:
        return TreeView(self.ctx, self.repo, self._tree)


def _object_id(kind: str, repo: RepoRecord, sha: str) -> str:
    return base64.b64encode(f"06:{kind}{repo.id}:{sha}".encode()).decode()


class _GitObject:
    typename = "GitObject"

    def __init__(self, ctx: Context, repo: RepoRecord, sha: str):
        self.oid = sha
        self.abbreviatedOid = sha[:7]
        self.id = _object_id(self.typename, repo, sha)
        self.commitUrl = f"{ctx.urls.repo_html(repo.full_name)}/commit/{sha}"
        self.commitResourcePath = f"/{repo.full_name}/commit/{sha}"


class BlobView(_GitObject):
    typename = "Blob"

    def __init__(self, ctx: Context, repo: RepoRecord, sha: str):
        super().__init__(ctx, repo, sha)
        data = repo.git.read_blob(sha)
        self.byteSize = len(data)
        self.isBinary = b"\0" in data[:BINARY_SNIFF]
        self.isTruncated = len(data) > BLOB_TEXT_LIMIT
        # Text is null for a binary blob; bytes that are not UTF-8 come back replaced.
        self.text = (
            None if self.isBinary else data[:BLOB_TEXT_LIMIT].decode("utf-8", errors="replace")
        )


class TreeView(_GitObject):
    typename = "Tree"


class TagView(_GitObject):
    typename = "Tag"

    def __init__(self, ctx: Context, repo: RepoRecord, sha: str):
        super().__init__(ctx, repo, sha)
        self.ctx, self.repo = ctx, repo
        got = repo.git.fast.object(sha)
        raw = got[1].decode("utf-8", "replace") if got else ""
        headers, _, message = raw.partition("\n\n")
        fields = dict(line.split(" ", 1) for line in headers.split("\n") if " " in line)
        self._target = fields.get("object", "")
        self.name = fields.get("tag", "")
        self.message = message

    def target(self, info: Any) -> Any:
        return git_object(self.ctx, self.repo, self._target)


def git_object(ctx: Context, repo: RepoRecord, sha: str) -> Any:
    """The view of any object by its id, or None when the repository has no such object."""
    kind = repo.git.object_type(sha)
    if kind == "commit":
        return CommitView(ctx, repo, sha)
    if kind == "blob":
        return BlobView(ctx, repo, sha)
    if kind == "tree":
        return TreeView(ctx, repo, sha)
    if kind == "tag":
        return TagView(ctx, repo, sha)
    return None


class TreeEntryView:
    def __init__(self, ctx: Context, repo: RepoRecord, path: str, mode: str, kind: str, sha: str):
        self.ctx, self.repo = ctx, repo
        self.path = path
        self.name = path.rsplit("/", 1)[-1]
        self.mode = int(mode, 8)
        self.type = kind
        self.oid = sha
        self.extension = "." + self.name.rsplit(".", 1)[-1] if "." in self.name else None

    def size(self, info: Any) -> int:
        return len(self.repo.git.read_blob(self.oid)) if self.type == "blob" else 0

    def object(self, info: Any) -> Any:
        # A submodule's commit lives in another repository: GitHub answers null.
        return None if self.type == "commit" else git_object(self.ctx, self.repo, self.oid)


def tree_entry(ctx: Context, repo: RepoRecord, commit: str, path: str) -> TreeEntryView | None:
    clean = path.strip("/")
    if not clean:
        return None
    entry = repo.git.entry_at(commit, clean)
    if entry is None:
        return None
    return TreeEntryView(ctx, repo, clean, entry.mode, entry.type, entry.sha)


def commit_file(self: CommitView, info: Any, path: str) -> TreeEntryView | None:
    """Commit.file(path:): the tree entry at path in this commit, or null."""
    ctx: Context = info.context
    return tree_entry(ctx, self.repo, self.oid, path)


def repository_object(
    self: Any, info: Any, oid: str | None = None, expression: str | None = None
) -> Any:
    """Repository.object(oid:, expression:): `REV` or `REV:PATH` as rev-parse reads them."""
    ctx: Context = info.context
    repo: RepoRecord = self.repo
    if oid is not None:
        return git_object(ctx, repo, oid.lower())
    if not expression:
        return None
    rev, colon, path = expression.partition(":")
    commit = repo.git.resolve_commit(rev or "HEAD")
    if commit is None:
        return None
    if not colon:
        return CommitView(ctx, repo, commit)
    if not path.strip("/"):
        return TreeView(ctx, repo, repo.git.resolve_tree(commit) or "")
    entry = repo.git.entry_at(commit, path.strip("/"))
    if entry is None or entry.type == "commit":
        return None
    return git_object(ctx, repo, entry.sha)
