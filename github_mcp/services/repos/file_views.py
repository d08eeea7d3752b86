"""What the file tools answer, built from the reads of services/shared/files.py: one file's
contents, a window of its lines, and a batch where each file reports its content or error.
The tools return these models as they are, so their output schemas come from here."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.services.shared.content import slice_lines
from github_mcp.services.shared.file_blobs import FileRead
from github_mcp.services.shared.files import MAX_READ_BYTES, read_file, read_many


class FileContents(BaseModel):
    path: str
    ref: str
    content: str
    encoding: Literal["utf-8", "base64"]
    truncated: bool
    total_bytes: int
    sha: str | None = None
    size: int

    @classmethod
    def of(cls, read: FileRead) -> FileContents:
        """get_file_contents' answer for a read."""
        return cls(
            path=read.path, ref=read.ref, content=read.content, encoding=read.encoding,
            truncated=read.truncated, total_bytes=read.total_bytes, sha=read.sha, size=read.size,
        )  # fmt: skip


class FileSlice(BaseModel):
    path: str
    ref: str
    sha: str | None = None
    text: str
    start_line: int
    end_line: int
    total_lines: int
    next_start_line: int | None = None
    file_truncated: bool = False


async def file_slice(
    github: GitHubClient,
    full_name: str,
    path: str,
    ref: str | None,
    lines: tuple[int, int],
    line_numbers: bool,
) -> FileSlice:
    """`lines` (first line, how many) of a file, with its total lines and the next start."""
    read = await read_file(github, full_name, path, ref, max_bytes=MAX_READ_BYTES)
    part = slice_lines(read.content, lines[0], lines[1], line_numbers)
    return FileSlice(
        path=path,
        ref=read.ref,
        sha=read.sha,
        text=part.text,
        start_line=part.start_line,
        end_line=part.end_line,
        total_lines=part.total_lines,
        next_start_line=part.next_start_line,
        file_truncated=read.truncated,
    )


class BatchItem(BaseModel):
    path: str
    content: str | None = None
    truncated: bool | None = None
    total_bytes: int | None = None
    sha: str | None = None
    error: dict[str, Any] | None = None  # the error envelope's `error` (code, message, hint)


class BatchResult(BaseModel):
    ref: str
    files: list[BatchItem]
    ok: int
    failed: int


async def fetch_batch(
    github: GitHubClient, full_name: str, paths: list[str], ref: str | None, max_bytes: int
) -> BatchResult:
    """Several files at one commit; each reports its content or its error."""
    read_ref, reads = await read_many(github, full_name, paths, ref, max_bytes=max_bytes)
    items = [_item(p, read) for p, read in zip(paths, reads, strict=True)]
    failed = sum(1 for i in items if i.error)
    return BatchResult(ref=read_ref, files=items, ok=len(items) - failed, failed=failed)


def _item(path: str, read: FileRead | GitHubMCPError) -> BatchItem:
    if isinstance(read, GitHubMCPError):
        return BatchItem(path=path, error=read.envelope()["error"])
    return BatchItem(
        path=path, content=read.content, truncated=read.truncated,
        total_bytes=read.total_bytes, sha=read.sha,
    )  # fmt: skip
