"""Resources, free of the MCP framework: the operating contract and `file_at_ref`, a file
at a ref read exactly as get_file_contents reads it (through the call seam: limits, binary
detection, allow-list, provenance). Every transport serves these same definitions.

A failed read has no result shape, so it is a JSON-RPC error whose code says whose fault
it is (`read_error`):
- a resource that does not exist (missing file, a directory): "resource not found",
  -32002 up to protocol 2025-11-25, -32602 from 2026-07-28 (SEP-2164 moved it); the
  envelope and the URI go in `data`;
- bad arguments (a bad template value, a binary file without allow_binary, a repository
  outside the allow-list): -32602;
- anything else (GitHub down, rate limits, our own bugs): -32603, envelope in `data`.
"""

from __future__ import annotations

import base64
import mimetypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, unquote, urlsplit

from github_mcp.kernel.params import check_full_name, check_path, check_ref
from github_mcp.pipeline import seam
from github_mcp.pipeline.answer import ToolAnswer

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime

BLOB_TEMPLATE = "repo://{owner}/{repo}/blob/{ref}/{path*}{?max_bytes,allow_binary}"
BLOB_NAME = "file_at_ref"
BLOB_DESCRIPTION = (
    "A repository file at a ref (branch, tag or SHA), with get_file_contents' limits: "
    "max_bytes (default 65536, at most 1 MiB); binaries only with allow_binary=true. "
    "Percent-encode '/' in a branch name (feature%2Fx)."
)
RESOURCE_NOT_FOUND = -32002  # the code before protocol 2026-07-28
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
NOT_FOUND_CODES = {"not_found", "not_a_file"}
CALLER_CODES = {"invalid_input", "binary_file", "repo_not_allowed", "forbidden"}


class ResourceFailure(Exception):
    """A resource read that failed with an error envelope (see `read_error`)."""

    def __init__(self, envelope: dict[str, Any]) -> None:
        error = envelope.get("error", {})
        super().__init__(str(error.get("message") or "resource read failed"))
        self.envelope = envelope


@dataclass(frozen=True)
class RpcFailure:
    code: int
    message: str
    data: dict[str, Any]


def read_error(envelope: dict[str, Any], uri: str, modern: bool) -> RpcFailure:
    """The JSON-RPC error of a failed read (see the module docstring)."""
    code_name = str(envelope.get("error", {}).get("code", "internal"))
    message = str(envelope.get("error", {}).get("message") or code_name)
    data = {"uri": uri, **envelope}
    if code_name in NOT_FOUND_CODES:
        code = INVALID_PARAMS if modern else RESOURCE_NOT_FOUND
        return RpcFailure(code, f"Resource not found: {message}", data)
    if code_name in CALLER_CODES:
        return RpcFailure(INVALID_PARAMS, message, data)
    return RpcFailure(INTERNAL_ERROR, message, data)


def blob_arguments(uri: str) -> dict[str, Any] | None:
    """get_file_contents' arguments for a `repo://owner/repo/blob/ref/path` URI (None: not
    one); a bad value raises ResourceFailure (invalid_input)."""
    parts = urlsplit(uri)
    segments = parts.path.split("/")
    if parts.scheme != "repo" or len(segments) < 5 or segments[2] != "blob":
        return None
    query = {key: values[-1] for key, values in parse_qs(parts.query).items()}
    return blob_call(
        f"{unquote(parts.netloc)}/{unquote(segments[1])}",
        unquote(segments[3]),
        "/".join(unquote(s) for s in segments[4:]),
        _int(query.get("max_bytes", "65536")),
        query.get("allow_binary", "false").lower() in ("true", "1"),
    )


def blob_call(
    full_name: str, ref: str, path: str, max_bytes: int, allow_binary: bool
) -> dict[str, Any]:
    """get_file_contents' arguments for the template's values, checked as the template
    documents them (ResourceFailure with invalid_input otherwise)."""
    arguments: dict[str, Any] = {
        "full_name": full_name,
        "ref": ref,
        "path": path,
        "max_bytes": max_bytes,
        "allow_binary": allow_binary,
    }
    problem = _check(arguments)
    if problem:
        raise ResourceFailure({"error": {"code": "invalid_input", "message": problem}})
    return arguments


async def read_blob(rt: Runtime, peer: Peer, arguments: dict[str, Any]) -> dict[str, Any]:
    """The file's one resource content (text, or blob for binaries), read through the
    seam as get_file_contents; ResourceFailure with its envelope on a failure."""
    answer = await seam.call_tool(rt, peer, "get_file_contents", arguments)
    if not isinstance(answer, ToolAnswer):  # a read never asks the user; say so if it does
        raise ResourceFailure({"error": {"code": "internal", "message": "a read asked for input"}})
    payload = answer.structured
    if answer.is_error:
        raise ResourceFailure(payload)
    meta = {
        k: payload[k] for k in ("ref", "sha", "truncated", "total_bytes", "size") if k in payload
    }
    path = arguments["path"]
    mime = mimetypes.guess_type(path)[0]
    if payload.get("encoding") == "base64":
        content = {"mimeType": mime or "application/octet-stream", "blob": payload["content"]}
    else:
        text_mime = mime if mime and mime.startswith("text/") else "text/plain"
        content = {"mimeType": text_mime, "text": payload["content"]}
    return {**content, "_meta": meta}


def decoded(content: dict[str, Any]) -> str | bytes:
    """A content's text, or its blob's bytes."""
    if "blob" in content:
        return base64.b64decode(content["blob"])
    return str(content["text"])


def _int(value: str) -> int:
    try:
        return int(value)
    except ValueError:
        return -1


def _check(arguments: dict[str, Any]) -> str | None:
    try:
        check_full_name(arguments["full_name"])
        check_ref(arguments["ref"])
        check_path(arguments["path"])
    except ValueError as exc:
        return str(exc)
    if not 1 <= arguments["max_bytes"] <= 1024 * 1024:
        return "max_bytes must be between 1 and 1048576"
    return None
