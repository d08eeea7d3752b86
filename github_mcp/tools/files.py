"""Reading files: the filtered tree, file contents, line slices, batches."""

from __future__ import annotations

from typing import Annotated

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.params import MAX_BATCH_PATHS, FullName, Ref, RepoPath, validate_path
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import files as file_service
from github_mcp.services.content import slice_lines
from github_mcp.services.tree import TreeResult, list_tree

TOOLSET = "files"
MaxBytes = Annotated[int, Field(ge=1, le=1024 * 1024, description="Byte cap (max 1 MiB).")]
# Checked in the schema, so a bad pattern never costs a GitHub request.
IgnorePattern = Annotated[str, Field(max_length=1024, pattern=r"^[^\r\n\x00]*$")]


@tool(toolset=TOOLSET, ref_arg="ref")
async def list_repository_tree(
    call: Call,
    full_name: FullName,
    ref: Ref | None = None,
    path: Annotated[str, Field(max_length=4096)] = "",
    recursive: bool = True,
    ignore_patterns: Annotated[list[IgnorePattern], Field(max_length=100)] | None = None,
    force: bool = False,
    limit: Annotated[int, Field(ge=1, le=100_000)] | None = None,
    cursor: Annotated[str, Field(max_length=10_000)] | None = None,
) -> TreeResult:
    """Filtered file tree at a ref (platform, .gitignore, your patterns, 200 KB size gate)."""
    assert ref is not None
    return await list_tree(
        call.rt.github,
        full_name,
        ref,
        path=path,
        recursive=recursive,
        ignore_patterns=ignore_patterns,
        force=force,
        limit=limit,
        cursor=cursor,
    )


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def get_file_contents(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    ref: Ref | None = None,
    max_bytes: MaxBytes = file_service.DEFAULT_READ_BYTES,
    allow_binary: bool = False,
) -> file_service.FileContents:
    """Read a text file at a ref, cut at max_bytes (never mid-character)."""
    read = await file_service.read_file(
        call.rt.github, full_name, path, ref, max_bytes=max_bytes, allow_binary=allow_binary
    )
    return file_service.FileContents.of(read)


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


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def get_file_slice(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    ref: Ref | None = None,
    start_line: Annotated[int, Field(ge=1)] = 1,
    max_lines: Annotated[int, Field(ge=1, le=2000)] = 200,
    line_numbers: bool = False,
) -> FileSlice:
    """Lines [start_line, start_line + max_lines) of a file, with total_lines and the next start."""
    read = await file_service.read_file(
        call.rt.github, full_name, path, ref, max_bytes=file_service.MAX_READ_BYTES
    )
    part = slice_lines(read.content, start_line, max_lines, line_numbers)
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
    error: dict | None = None


class BatchResult(BaseModel):
    ref: str
    files: list[BatchItem]
    ok: int
    failed: int


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def fetch_files(
    call: Call,
    full_name: FullName,
    paths: Annotated[list[RepoPath], Field(min_length=1, max_length=MAX_BATCH_PATHS)],
    ref: Ref | None = None,
    max_bytes_per_file: MaxBytes = 32 * 1024,
) -> BatchResult:
    """Read up to 30 files at once (one request); each reports its content or error."""
    for p in paths:
        validate_path(p)
    ref, reads = await file_service.read_many(
        call.rt.github, full_name, list(paths), ref, max_bytes=max_bytes_per_file
    )
    items = []
    for p, read in zip(paths, reads, strict=True):
        if isinstance(read, GitHubMCPError):
            items.append(BatchItem(path=p, error=read.envelope()["error"]))
        else:
            items.append(
                BatchItem(
                    path=p,
                    content=read.content,
                    truncated=read.truncated,
                    total_bytes=read.total_bytes,
                    sha=read.sha,
                )
            )
    failed = sum(1 for i in items if i.error)
    return BatchResult(ref=ref, files=items, ok=len(items) - failed, failed=failed)
