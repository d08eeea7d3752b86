"""The workflow-run resource, free of the MCP framework: `repo://{owner}/{repo}/actions/
runs/{run_id}`, a run's state (status, conclusion, head SHA, its jobs) read exactly as
get_workflow_run_overview reads it, through the call seam (allow-list, provenance: a
private run read counts as a read of its repository). Its failures are those of
resources.py (`read_error`).

A 2026-07-28 client watches it by naming its URI in a `subscriptions/listen` filter
(`resourceSubscriptions`); serving/run_watch.py polls it while the stream is open.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

from github_mcp.catalog.resources import INVALID_PARAMS, ResourceFailure, RpcFailure, read_error
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import check_full_name
from github_mcp.pipeline import seam
from github_mcp.pipeline.answer import ToolAnswer

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime

RUN_TEMPLATE = "repo://{owner}/{repo}/actions/runs/{run_id}"
RUN_NAME = "workflow_run"
RUN_TOOL = "get_workflow_run_overview"
RUN_MIME = "application/json"
RUN_DESCRIPTION = (
    "A GitHub Actions run's state as JSON: status, conclusion, head SHA and its jobs "
    "(get_workflow_run_overview's answer). Watch it with subscriptions/listen "
    "(resourceSubscriptions: [this URI]): notifications/resources/updated when its "
    "status or conclusion changes."
)
RUN_HINT = "A workflow run's URI is repo://OWNER/REPO/actions/runs/RUN_ID (list_workflow_runs)."


def run_uri(full_name: str, run_id: int) -> str:
    return f"repo://{full_name}/actions/runs/{run_id}"


def run_arguments(uri: str) -> dict[str, Any] | None:
    """get_workflow_run_overview's arguments for a run URI (None: not one); a bad value
    raises ResourceFailure (invalid_input, with a hint)."""
    parts = urlsplit(uri)
    segments = parts.path.split("/")
    if parts.scheme != "repo" or len(segments) < 4 or segments[2:4] != ["actions", "runs"]:
        return None
    if len(segments) != 5 or parts.query or parts.fragment:
        raise _invalid("a workflow run's URI ends with its numeric id")
    return run_call(f"{unquote(parts.netloc)}/{unquote(segments[1])}", unquote(segments[4]))


def run_call(full_name: str, run_id: str) -> dict[str, Any]:
    """The tool's arguments for the template's values, checked (ResourceFailure)."""
    try:
        check_full_name(full_name)
    except ValueError as exc:
        raise _invalid(str(exc)) from None
    if not (run_id.isascii() and run_id.isdecimal()) or not 1 <= int(run_id) < 2**53:
        raise _invalid(f"run_id must be a positive integer, not {run_id[:40]!r}")
    return {"full_name": full_name, "run_id": int(run_id)}


async def read_run(rt: Runtime, peer: Peer, arguments: dict[str, Any]) -> dict[str, Any]:
    """The run's one resource content (JSON text; its status and conclusion in `_meta`),
    read through the seam; ResourceFailure with its envelope on a failure."""
    answer = await seam.call_tool(rt, peer, RUN_TOOL, arguments)
    if not isinstance(answer, ToolAnswer):  # a read never asks the user; say so if it does
        raise ResourceFailure({"error": {"code": "internal", "message": "a read asked for input"}})
    payload = answer.structured
    if answer.is_error:
        raise ResourceFailure(payload)
    run = payload.get("run") or {}
    state = {"run": run, "jobs": payload.get("jobs") or []}
    meta = {"status": run.get("status"), "conclusion": run.get("conclusion")}
    return {"mimeType": RUN_MIME, "text": json.dumps(state, sort_keys=True), "_meta": meta}


def _invalid(message: str) -> ResourceFailure:
    error = GitHubMCPError(ErrorCode.INVALID_INPUT, message, hint=RUN_HINT)
    return ResourceFailure(error.envelope())


class WatchRefused(Exception):
    """Why a listen stream may not watch its URIs: the JSON-RPC error to answer with."""

    def __init__(self, failure: RpcFailure) -> None:
        super().__init__(failure.message)
        self.failure = failure


def watched_calls(rt: Runtime, uris: list[str]) -> list[tuple[str, dict[str, Any]]]:
    """Each URI a listen stream asks to watch, with its run's arguments; WatchRefused
    (invalid params, with a hint) for too many URIs, one that is not a workflow run's,
    or a run URI that does not parse. Each transport answers it as its own error."""
    limit = rt.settings.watch_max_uris
    if len(uris) > limit:
        raise _refused(
            f"a listen stream watches at most {limit} resources, not {len(uris)}",
            "Split the URIs over several subscriptions/listen streams, or raise "
            "GITHUB_MCP_WATCH_MAX_URIS on the server.",
            limit=limit,
            given=len(uris),
        )
    calls = []
    for uri in uris:
        try:
            call = run_arguments(uri)
        except ResourceFailure as failed:
            raise WatchRefused(read_error(failed.envelope, uri[:200], modern=True)) from None
        if call is None or RUN_TOOL not in rt.bound_specs:
            raise _refused(
                f"only workflow runs can be watched, not {uri[:200]!r}", RUN_HINT, uri=uri[:200]
            )
        calls.append((uri, call))
    return calls


def _refused(message: str, hint: str, **details: Any) -> WatchRefused:
    envelope = GitHubMCPError(ErrorCode.INVALID_INPUT, message, hint=hint, **details).envelope()
    return WatchRefused(RpcFailure(INVALID_PARAMS, message, envelope))
