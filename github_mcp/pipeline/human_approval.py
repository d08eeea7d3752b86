"""Asking the human (GITHUB_MCP_APPROVAL_MODE=auto), through the best channel the client has:

1. URL elicitation over HTTP: the client opens this server's approval page; the call waits
   for the click there (behind the same sign-in) and resumes.
2. Form elicitation: the client shows the write's summary and the three choices itself.
3. Neither, over HTTP: a refusal whose hint carries the approval page's link for the human;
   once they approve, the same call made again passes, once.
4. Neither, over stdio (no page to open): `tool` behaviour, relying on the client's own
   confirmation before it runs `authorize_write_actions`.

The model's own tool calls never approve anything in this mode over HTTP.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING, Any, Literal

from github_mcp.approvals.permission import check_own_permission
from github_mcp.approvals.record import ApprovalRequest, Status
from github_mcp.approvals.summary import WriteSummary, summarize
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import log_event
from github_mcp.pipeline.approval_binding import write_fingerprints
from github_mcp.pipeline.peer import Answer, InputRequired
from github_mcp.policy.gate import holds_window
from github_mcp.services.shared.approved_state import tree_paths
from github_mcp.services.shared.files import MAX_READ_BYTES, read_file

if TYPE_CHECKING:
    from github_mcp.pipeline.spec import Call

Outcome = Literal["approved", "tool"]
# Asks a human about one gated write (auto mode); True when they approved it, else it
# raises the refusal to report. Given the gate's reason for asking.
HumanApproval = Callable[[str], Awaitable[bool]]


class ClientInputRequired(Exception):
    """On a 2026-07-28 connection the question travels back as the call's result (an
    InputRequired); the client asks its human and retries the call with the answer.
    The pipeline returns `result` as it is."""

    def __init__(self, result: InputRequired) -> None:
        super().__init__("client input required")
        self.result = result


def human_approval(call: Call, args: dict[str, Any], branch: str | None) -> HumanApproval | None:
    """The gate's way to ask about this write, in auto mode; None in the other modes."""
    if call.rt.settings.approval_mode != "auto":
        return None

    async def ask(reason: str) -> bool:
        if _channels(call)[:3] == (False, False, False):
            return False  # stdio without elicitation: `tool` behaviour
        await check_own_permission(call.rt.github, call.repo, branch)
        summary = await summarize(
            call.spec.name, args, call.repo, branch, reason, _reader(call), state=call.bound,
            list_paths=partial(tree_paths, call.rt.github),
        )  # fmt: skip
        plain_call, fp = write_fingerprints(call, args, branch)
        return await ask_human(call, summary, fp, plain_call) == "approved"

    return ask


async def ask_human(
    call: Call, summary: WriteSummary | None, fp: str | None, call_fp: str | None = None
) -> Outcome:
    """Ask about one write (`summary`) or, with None, about the session's gated writes.
    Returns `approved`, or `tool` when only the client's own tool confirmation is there
    (stdio without elicitation); raises the refusal otherwise."""
    rt = call.rt
    scope = call.approval
    if scope is None:
        raise GitHubMCPError(
            ErrorCode.WRITE_NOT_ALLOWED,
            "Nothing identifies this caller, so no approval can be bound to it.",
            hint="Authenticate (GITHUB_MCP_AUTH=oauth or bearer tokens) or use a stateful "
            "HTTP session; or write to a feature branch.",
        )
    http, url_ok, form_ok, modern = _channels(call)
    pending = rt.pending
    cards = rt.approval_cards
    if summary is not None and cards is not None and cards.trusted(call):
        request = pending.open(scope, summary, fp, call_fp)
        raise cards.refusal(
            pending, request, pending.link(request, _base_url(call)) if http else None
        )
    if modern and (url_ok or form_ok):
        return await _ask_on_retry(call, summary, fp, call_fp, http and url_ok)
    if http and url_ok:
        return await _ask_on_page(call, pending.open(scope, summary, fp, call_fp), summary)
    if form_ok:
        return await _ask_form(call, summary)
    if http:
        request = pending.open(scope, summary, fp, call_fp)
        raise _needs_page(call, pending.link(request, _base_url(call)), request)
    return "tool"


async def _ask_on_page(
    call: Call, request: ApprovalRequest, summary: WriteSummary | None
) -> Outcome:
    """A URL elicitation that sends the human to the approval page, then the wait for
    their decision there."""
    pending = call.rt.pending
    link = pending.link(request, _base_url(call))
    result = await _elicit_url(call, request, link, summary)
    if result is None:
        raise _needs_page(call, link, request)
    if result.action != "accept":
        pending.decline(request)
        raise _refused("The human declined to open the approval page.")
    status = await pending.wait(request, call.rt.settings.approval_prompt_timeout_seconds)
    await _complete(call, request)
    return _url_outcome(call, request, status, link)


# -- channels ----------------------------------------------------------------------


def _channels(call: Call) -> tuple[bool, bool, bool, bool]:
    """(over HTTP, URL elicitation usable, form elicitation usable, 2026-07-28 protocol:
    no request to the client mid-call, so questions travel as InputRequiredResult)."""
    peer = call.peer
    asks = peer.elicitation
    return peer.transport == "http", asks.url, asks.form, peer.modern


def _base_url(call: Call) -> str:
    configured = call.rt.pending.public_url
    return configured or call.peer.base_url() or ""


# -- URL elicitation -----------------------------------------------------------------


async def _elicit_url(
    call: Call, request: ApprovalRequest, link: str, summary: WriteSummary | None
) -> Answer | None:
    """Ask the client to open the page; None when the connection cannot carry the
    request (stateless HTTP has no back-channel)."""
    try:
        return await call.peer.ask_url(_url_message(summary), link, request.id)
    except Exception as exc:  # no back-channel, or the client failed the request
        log_event("approval_url_elicitation_failed", request=request.id, error=type(exc).__name__)
        return None


def _url_message(summary: WriteSummary | None) -> str:
    what = (
        f"{summary.tool} on {summary.repo or 'GitHub'}"
        + (f" @ {summary.branch}" if summary.branch else "")
        if summary
        else "writes to protected branches in this session"
    )
    return (
        f"Approve {what}? Open this server's approval page to see exactly what will be "
        "written, then approve or deny there."
    )


async def _complete(call: Call, request: ApprovalRequest) -> None:
    """notifications/elicitation/complete: the page interaction is over."""
    with contextlib.suppress(Exception):
        await call.peer.url_done(request.id)


def _url_outcome(call: Call, request: ApprovalRequest, status: Status, link: str) -> Outcome:
    gate = call.rt.gate
    if status == "approved_window":
        return "approved"
    if status == "approved":
        if request.fingerprint is None:
            return "approved"  # the session's approval, set by the decision
        if gate.take_once(request.scope.key, request.fingerprint):
            return "approved"
        raise _refused("This approval was already used by another call of the same write.")
    if status == "pending":
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            "Nobody decided on the approval page in time; nothing was approved.",
            hint=f"The human can still decide at {link}; then call this tool again "
            "with the same arguments.",
            approval_url=link,
        )
    if status == "denied":
        raise _refused("The human denied this on the approval page.")
    raise _refused(f"The approval request ended ({status}); nothing was approved.")


# -- 2026-07-28: the question as the call's result, the answer with its retry ---------


async def _ask_on_retry(
    call: Call, summary: WriteSummary | None, fp: str | None, call_fp: str | None, use_page: bool
) -> Outcome:
    assert call.approval is not None
    answers = call.peer.input_responses
    pending = call.rt.pending
    if use_page:
        request = pending.open(call.approval, summary, fp, call_fp)
        link = pending.link(request, _base_url(call))
        key = f"approval-page-{request.id}"
        answer = answers.get(key)
        if answer is None:
            url = {"mode": "url", "message": _url_message(summary), "url": link}
            raise _question(key, {**url, "elicitationId": request.id})
        if answer.action != "accept":
            pending.decline(request)
            raise _refused("The human declined to open the approval page.")
        status = await pending.wait(request, call.rt.settings.approval_prompt_timeout_seconds)
        return _url_outcome(call, request, status, link)
    key = "approval-form-" + (fp or "session")[:24]
    answer = answers.get(key)
    if answer is None:
        minutes = call.rt.settings.approval_window_minutes
        schema = _form_schema(summary, minutes, holds_window(call.approval.key))
        form = {"mode": "form", "message": _form_message(summary), "requestedSchema": schema}
        raise _question(key, form)
    content = answer.content or {}
    accepted = answer.action == "accept"
    return _apply_choice(call, summary, content.get("value") if accepted else None)


def _question(key: str, params: dict[str, Any]) -> ClientInputRequired:
    request = {"method": "elicitation/create", "params": params}
    return ClientInputRequired(InputRequired({key: request}))


# -- form elicitation ----------------------------------------------------------------


async def _ask_form(call: Call, summary: WriteSummary | None) -> Outcome:
    assert call.approval is not None
    settings = call.rt.settings
    windows = holds_window(call.approval.key)
    schema = _form_schema(summary, settings.approval_window_minutes, windows)
    try:
        async with asyncio.timeout(settings.approval_prompt_timeout_seconds):
            result = await call.peer.ask_form(_form_message(summary), schema)
    except TimeoutError:
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            "Nobody answered the approval prompt in time; nothing was approved.",
            hint="Ask the human to answer the prompt, then call this tool again.",
        ) from None
    except Exception:
        raise _refused("The client could not show the approval prompt.") from None
    content = (result.content or {}) if result.action == "accept" else {}
    return _apply_choice(call, summary, content.get("value"))


def _form_message(summary: WriteSummary | None) -> str:
    subject = summary.text() if summary else "Writes to protected branches in this session."
    return f"Approve this write?\n\n{subject}"


def _form_schema(summary: WriteSummary | None, minutes: int, windows: bool) -> dict[str, Any]:
    """The choices, each saying exactly what it grants; a client without a session is
    offered no window (per-write approvals only)."""
    session = "this client session only"
    choices = [
        (
            "approve",
            "Approve this one write, once"
            if summary
            else f"Approve gated writes in {session}, until the approval expires",
        )
    ]
    if windows:
        choices.append(
            ("approve_window", f"Approve every gated write in {session} for {minutes} minutes")
        )
    choices.append(("deny", "Deny: nothing is approved"))
    return {
        "type": "object",
        "properties": {
            "value": {
                "type": "string",
                "title": "Decision",
                "oneOf": [{"const": value, "title": title} for value, title in choices],
            }
        },
        "required": ["value"],
    }


def _apply_choice(call: Call, summary: WriteSummary | None, choice: Any) -> Outcome:
    """A form answer: approve (this write, or the session when asked about the session),
    approve for N minutes, or anything else: refused."""
    assert call.approval is not None
    scope_key = call.approval.key
    log_event("approval_form_answer", principal=call.approval.principal.key, choice=choice)
    if choice == "approve_window":
        minutes = call.rt.settings.approval_window_minutes
        call.rt.gate.set_approval(scope_key, True, ttl_seconds=minutes * 60)
        return "approved"
    if choice == "approve":
        if summary is None:
            call.rt.gate.set_approval(scope_key, True)
        return "approved"
    raise _refused("The human did not approve.")


# -- refusals ------------------------------------------------------------------------


def _refused(message: str) -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        message,
        hint="Work on a feature branch (create_branch) and open a pull request instead.",
    )


def _needs_page(call: Call, link: str, request: ApprovalRequest) -> GitHubMCPError:
    """The refusal carrying the page's link (and, for a client that renders MCP Apps, a
    card showing the write and that link: the page decides)."""
    assert call.approval is not None
    who = call.approval.principal
    signed_in = f" signed in as {who.name}" if who.kind == "github" else ""
    error = GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "This needs a human's approval, and this client cannot show an approval prompt.",
        hint=f"Give the human this link to open{signed_in}: {link} . It shows exactly what "
        "will be written; once they approve, call this tool again with the same arguments. "
        "Calling authorize_write_actions yourself does not approve it.",
        approval_url=link,
    )
    cards = call.rt.approval_cards
    return error if cards is None else cards.page_card(call, error, request, link)


def _reader(call: Call) -> Any:
    github = call.rt.github

    async def one(repo: str, path: str, branch: str) -> str | GitHubMCPError | None:
        try:
            read = await read_file(github, repo, path, branch, max_bytes=MAX_READ_BYTES)
        except GitHubMCPError as exc:
            return None if exc.code == ErrorCode.NOT_FOUND else exc
        return read.content if read.encoding == "utf-8" and not read.truncated else _UNREAD

    async def read_current(repo: str, paths: list[str], branch: str) -> dict[str, str | None]:
        reads = await asyncio.gather(*(one(repo, p, branch) for p in paths))
        return {p: r for p, r in zip(paths, reads, strict=True) if not isinstance(r, Exception)}

    return read_current


# a file the summary cannot count lines of (binary, or larger than a read)
_UNREAD = GitHubMCPError(ErrorCode.BINARY_FILE, "not counted")
