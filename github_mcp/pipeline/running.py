"""Running one call of a registered tool: its call id, client log and trace span around
the steps of pipeline/steps.py in order (the allow-list and effective ref, the write gate,
the handler, the audit log, and the tool result or error envelope shaped in
call_outcome.py). The call seam (seam.py) validates the arguments and calls `run_tool`;
handlers never check permissions.
"""

from __future__ import annotations

import contextlib
import secrets
from typing import TYPE_CHECKING, Any

from github_mcp.monitoring import client_log
from github_mcp.pipeline import steps
from github_mcp.pipeline.answer import ToolAnswer
from github_mcp.pipeline.call_outcome import after_write, envelope_error
from github_mcp.pipeline.call_scope import tool_call_scope
from github_mcp.pipeline.flows import note_reads
from github_mcp.pipeline.human_approval import ClientInputRequired
from github_mcp.pipeline.peer import InputRequired

if TYPE_CHECKING:
    from github_mcp.pipeline.peer import Peer
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec


async def run_tool(
    spec: ToolSpec, rt: Runtime, kwargs: dict[str, Any], peer: Peer
) -> ToolAnswer | InputRequired:
    """One call with validated arguments (seam.py validates them): its call_id, client
    log and trace span around the pipeline below."""
    call_id = secrets.token_hex(8)  # 16 hex characters, as the logs and envelopes show
    async with tool_call_scope(spec.name, call_id, write=spec.write, peer=peer) as trace:
        await client_log.debug(f"{spec.name}: started (call_id {call_id})")
        result = await _run_pipeline(spec, rt, kwargs, peer, call_id)
        failure = envelope_error(result)
        repo = kwargs.get(spec.repo_arg) if spec.repo_arg else None
        trace.finish(repo=repo if isinstance(repo, str) else None, error_code=failure.get("code"))
        if failure:
            await client_log.error(
                f"{spec.name} failed: {failure.get('code')}: {failure.get('message', '')}",
            )
        return result


async def _run_pipeline(
    spec: ToolSpec,
    rt: Runtime,
    kwargs: dict[str, Any],
    peer: Peer,
    call_id: str,
) -> ToolAnswer | InputRequired:
    """The steps of pipeline/steps.py, in order; any failure becomes the error envelope."""
    run = steps.begin(spec, rt, kwargs, peer, call_id)
    async with contextlib.AsyncExitStack() as held:  # the per-PR write lock, if taken
        try:
            await steps.scope_arguments(run)
            if spec.write:
                await steps.authorize_write(run, held)
                if (replay := await steps.claim_once(run)) is not None:
                    return replay
            result = await spec.handler(run.call, **kwargs)
            if spec.write:
                await after_write(rt, run.call, result)
        except ClientInputRequired as question:
            return question.result  # the client asks its human, then retries with the answer
        except Exception as exc:
            return await steps.failed(run, exc)
        finally:
            await note_reads(run.call)  # what this call read counts for the scope's later writes
    return await steps.succeeded(run, result)
