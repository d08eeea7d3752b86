"""A tree listing, and the answer list_repository_tree gives: typed models the tool returns
as they are, so its output schema is generated from them. A None field is left out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel

from github_mcp.services.repos.tree._model import ExcludedDir, ExcludedItem, TreeEntry


class TreeFile(BaseModel):
    path: str
    size: int | None = None
    sha: str
    type: str | None = None  # left out for a blob

    @classmethod
    def of(cls, entry: TreeEntry) -> TreeFile:
        kind = None if entry.type == "blob" else entry.type
        return cls(path=entry.path, size=entry.size, sha=entry.sha, type=kind)


class Excluded(BaseModel):
    path: str
    reason: Literal["platform", "gitignore", "user", "size"]
    size: int | None = None
    pattern: str | None = None
    source: str | None = None
    type: str | None = None  # left out for a blob

    @classmethod
    def of(cls, item: ExcludedItem) -> Excluded:
        kind = None if item.type == "blob" else item.type
        return cls(
            path=item.path, reason=item.reason, size=item.size, pattern=item.pattern,
            source=item.source, type=kind,
        )  # fmt: skip


class ExcludedDirectory(BaseModel):
    path: str
    reason: str
    pattern: str
    source: str | None = None
    files: int

    @classmethod
    def of(cls, d: ExcludedDir) -> ExcludedDirectory:
        return cls(path=d.path, reason=d.reason, pattern=d.pattern, source=d.source, files=d.files)


class TreeResult(BaseModel):
    full_name: str
    ref: str
    resolved_sha: str
    path: str
    recursive: bool
    file_tree: list[TreeFile]
    excluded: list[Excluded]
    excluded_dirs: list[ExcludedDirectory] | None = None
    submodules: list[TreeFile] | None = None
    counts: dict[str, int]
    total: int
    next_cursor: str | None = None
    completion: dict[str, Any] | None = None
    truncated: bool = False
    cache_hit: bool


@dataclass(slots=True)
class TreeListing:
    path: str
    recursive: bool
    file_tree: list[TreeEntry]
    excluded: list[ExcludedItem]
    excluded_dirs: list[ExcludedDir]
    submodules: list[TreeEntry]
    counts: dict[str, int]
    total: int
    next_cursor: str | None = None
    completion: dict[str, Any] | None = None
    gitignores: list[str] = field(default_factory=list)
    requests: int = 0

    def result(self, full_name: str, ref: str, resolved_sha: str, cache_hit: bool) -> TreeResult:
        """The listing as the tool answers it, for the repository, ref and commit it is of."""
        return TreeResult(
            full_name=full_name,
            ref=ref,
            resolved_sha=resolved_sha,
            path=self.path,
            recursive=self.recursive,
            file_tree=[TreeFile.of(e) for e in self.file_tree],
            excluded=[Excluded.of(x) for x in self.excluded],
            excluded_dirs=[ExcludedDirectory.of(d) for d in self.excluded_dirs] or None,
            submodules=[TreeFile.of(s) for s in self.submodules] or None,
            counts=dict(self.counts),
            total=self.total,
            next_cursor=self.next_cursor,
            completion=dict(self.completion) if self.completion is not None else None,
            cache_hit=cache_hit,
        )
