"""Reading files: the filtered tree, file contents, line slices, batches."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from github_mcp.kernel.params import MAX_BATCH_PATHS, FullName, Ref, RepoPath, validate_path
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services.repos import file_views as views
from github_mcp.services.repos.tree import TreeResult, list_tree
from github_mcp.services.shared import files as file_service

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
) -> views.FileContents:
    """Read a text file at a ref, cut at max_bytes (never mid-character)."""
    read = await file_service.read_file(
        call.rt.github, full_name, path, ref, max_bytes=max_bytes, allow_binary=allow_binary
    )
    return views.FileContents.of(read)


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def get_file_slice(
    call: Call,
    full_name: FullName,
    path: RepoPath,
    ref: Ref | None = None,
    start_line: Annotated[int, Field(ge=1)] = 1,
    max_lines: Annotated[int, Field(ge=1, le=2000)] = 200,
    line_numbers: bool = False,
) -> views.FileSlice:
    """Lines [start_line, start_line + max_lines) of a file, with total_lines and the next start."""
    return await views.file_slice(
        call.rt.github, full_name, path, ref, (start_line, max_lines), line_numbers
    )


@tool(toolset=TOOLSET, ref_arg="ref", lazy_default_ref=True)
async def fetch_files(
    call: Call,
    full_name: FullName,
    paths: Annotated[list[RepoPath], Field(min_length=1, max_length=MAX_BATCH_PATHS)],
    ref: Ref | None = None,
    max_bytes_per_file: MaxBytes = 32 * 1024,
) -> views.BatchResult:
    """Read up to 30 files at once (one request); each reports its content or error."""
    for p in paths:
        validate_path(p)
    return await views.fetch_batch(call.rt.github, full_name, list(paths), ref, max_bytes_per_file)
