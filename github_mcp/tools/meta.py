"""Meta tools: configuration, introspection, approval, rate limit, identity, cache."""

from __future__ import annotations

import asyncio
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Field

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.params import FullName
from github_mcp.pipeline.registry import Call, tool
from github_mcp.pipeline.runtime import VERSION
from github_mcp.services import account
from github_mcp.services.account import RateResource
from github_mcp.services.environment import check_environment

TOOLSET = "meta"


class ApprovalPolicy(BaseModel):
    mode: str
    approved: bool
    auto_approve: bool
    expires_in_s: float | None = None
    toggle_tool: str = "authorize_write_actions"
    protected: list[str]
    cross_visibility: str = Field(
        "approve", description="After a private read, public writes: approve, deny or allow."
    )
    repos_read: list[str] = Field(
        default_factory=list, description="Repositories this session read (this replica)."
    )


class ServerConfig(BaseModel):
    version: str
    github_api_url: str
    credential_kind: str
    read_only: bool
    toolsets: list[str]
    repo_allowlist: list[str]
    controller_repo: str | None = None
    controller_branch: str
    write_policy: ApprovalPolicy
    workspace_sandbox: str


@tool(toolset=TOOLSET, repo_arg=None)
async def get_server_config(call: Call) -> ServerConfig:
    """Non-secret snapshot of the configuration and the write policy for this session."""
    s = call.rt.settings
    gate = call.rt.gate
    protected = ["<default branch>"]
    if s.controller_repo:
        protected.append(f"{s.controller_repo}@{s.controller_branch}")
    protected.extend(s.protected_globs)
    return ServerConfig(
        version=VERSION,
        github_api_url=s.github_api_url,
        credential_kind=call.rt.token_kind,
        read_only=s.read_only,
        toolsets=list(s.toolset_list),
        repo_allowlist=list(s.allowlist),
        controller_repo=s.controller_repo,
        controller_branch=s.controller_branch,
        write_policy=ApprovalPolicy(
            mode=s.approval_mode,
            approved=gate.is_approved(call.scope),
            auto_approve=s.auto_approve,
            expires_in_s=gate.approval_expires_in(call.scope),
            protected=protected,
            cross_visibility=s.cross_visibility,
            repos_read=sorted(gate.reads.read_by(call.scope)[0]),
        ),
        workspace_sandbox=s.workspace_sandbox,
    )


class Check(BaseModel):
    name: str
    level: Literal["ok", "warning", "error"]
    detail: str


class EnvironmentReport(BaseModel):
    ok: int
    warnings: int
    errors: int
    checks: list[Check]


@tool(toolset=TOOLSET, repo_arg=None)
async def validate_environment(call: Call, probe_github: bool = True) -> EnvironmentReport:
    """Check credentials, controller repo, workspace and HTTP settings; optionally probe GitHub."""
    rt = call.rt
    found = await check_environment(
        rt.github, rt.settings, rt.gate.default_branch,
        credential_kind=rt.token_kind, probe_github=probe_github,
    )  # fmt: skip
    checks = [Check(name=c.name, level=c.level, detail=c.detail) for c in found]
    counts = {level: sum(c.level == level for c in checks) for level in ("ok", "warning", "error")}
    return EnvironmentReport(
        ok=counts["ok"], warnings=counts["warning"], errors=counts["error"], checks=checks
    )


class ActionInfo(BaseModel):
    name: str
    toolset: str
    write: bool
    description: str | None = None
    target: str | None = None
    destructive: bool | None = None
    parameters: dict[str, Any] | None = None


class ActionList(BaseModel):
    total: int
    tools: list[ActionInfo]


def _info(call: Call, name: str, *, params: bool, compact: bool) -> ActionInfo:
    spec = call.rt.bound_specs[name]
    return ActionInfo(
        name=spec.name,
        toolset=spec.toolset,
        write=spec.write,
        description=None if compact else spec.description,
        target=spec.target_label,
        destructive=spec.destructive or None,
        parameters=call.rt.tool_schemas[name][0] if params else None,
    )


@tool(toolset=TOOLSET, repo_arg=None)
async def list_all_actions(
    call: Call, include_parameters: bool = False, compact: bool = True
) -> ActionList:
    """List every registered tool with its toolset and read/write tag."""
    names = sorted(call.rt.bound_specs)
    tools = [_info(call, n, params=include_parameters, compact=compact) for n in names]
    return ActionList(total=len(tools), tools=tools)


@tool(toolset=TOOLSET, repo_arg=None)
async def list_write_tools(call: Call) -> ActionList:
    """List the write-capable tools and what each writes to."""
    names = sorted(n for n, s in call.rt.bound_specs.items() if s.write)
    tools = [_info(call, n, params=False, compact=False) for n in names]
    return ActionList(total=len(tools), tools=tools)


class ToolDescription(BaseModel):
    name: str
    toolset: str
    write: bool
    description: str
    target: str | None = None
    annotations: dict[str, Any]
    input_schema: dict[str, Any]
    output_schema: dict[str, Any] | None = None


ToolName = Annotated[str, Field(min_length=1, max_length=100)]


def _spec(call: Call, name: str):
    spec = call.rt.bound_specs.get(name)
    if spec is None:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No tool named {name!r}.",
            hint="list_all_actions lists the tools.",
        )
    return spec


@tool(toolset=TOOLSET, repo_arg=None)
async def describe_tool(call: Call, name: ToolName) -> ToolDescription:
    """The full input and output schema of one tool, with its write target."""
    spec = _spec(call, name)
    _, outputs = call.rt.tool_schemas[name]
    inputs = call.rt.validation_schemas[name]  # every rule, not the listing's lighter form
    return ToolDescription(
        name=spec.name,
        toolset=spec.toolset,
        write=spec.write,
        description=spec.description,
        target=spec.target_label,
        annotations=spec.annotations.model_dump(by_alias=True, exclude_none=True),
        input_schema=inputs,
        output_schema=outputs,
    )


class ArgsValidation(BaseModel):
    valid: bool
    errors: list[str] = []


@tool(toolset=TOOLSET, repo_arg=None)
async def validate_tool_args(call: Call, name: ToolName, args: dict[str, Any]) -> ArgsValidation:
    """Validate arguments against a tool's real input schema without calling it."""
    import jsonschema  # lazy: keeps server start-up fast

    _spec(call, name)
    schema = call.rt.validation_schemas[name]
    validator = jsonschema.Draft202012Validator(schema)
    errors = [
        f"{'/'.join(str(p) for p in err.absolute_path) or '<root>'}: {err.message}"[:300]
        for err in sorted(validator.iter_errors(args), key=lambda e: list(e.absolute_path))[:20]
    ]
    return ArgsValidation(valid=not errors, errors=errors)


class ApprovalState(BaseModel):
    approved: bool
    mode: str
    scope: Literal["process", "session", "principal"] = Field(
        description="What the approval belongs to: this server process (stdio) or this "
        "session. A client without a session (`principal`) holds no approval window: "
        "each gated write is approved on its own."
    )
    principal: str
    expires_in_s: float | None = None
    note: str | None = None


TOOL_CONFIRMATION_NOTE = (
    "Approved by this call: this client has no elicitation and stdio has no approval "
    "page, so the approval relies on the client asking its human before running this tool."
)


@tool(toolset=TOOLSET, repo_arg=None, read_only_hint=False)
async def authorize_write_actions(call: Call, approved: bool) -> ApprovalState:
    """Approve (or revoke) protected and unscoped writes for this session; may ask the human."""
    s = call.rt.settings
    gate = call.rt.gate
    if s.approval_mode == "env":
        raise GitHubMCPError(
            ErrorCode.FORBIDDEN,
            "Approval is controlled by the operator (GITHUB_MCP_APPROVAL_MODE=env).",
            hint="Ask the operator to set GITHUB_MCP_AUTO_APPROVE.",
        )
    if call.scope is None or call.approval is None:
        raise GitHubMCPError(
            ErrorCode.FORBIDDEN,
            "This connection has no session or principal to scope an approval to.",
            hint="Use bearer authentication or a stateful HTTP session.",
        )
    if approved:
        gate.require_window(call.scope)  # a sessionless client is approved per write
    note = None
    if approved and s.approval_mode == "auto":
        from github_mcp.pipeline.human_approval import ask_human

        if await ask_human(call, None, None) == "tool":
            gate.set_approval(call.scope, True)
            note = TOOL_CONFIRMATION_NOTE
        # otherwise the human's decision has set (or refused) the approval
    else:
        if approved and s.approval_mode == "elicit":
            question = await _ask_human(call)
            if question is not None:
                return question  # the client asks the human and retries with the answer
        gate.set_approval(call.scope, approved)
    return ApprovalState(
        approved=gate.is_approved(call.scope),
        mode=s.approval_mode,
        scope=call.approval.label,
        principal=call.principal.name,
        expires_in_s=gate.approval_expires_in(call.scope),
        note=note,
    )


APPROVAL_QUESTION = (
    "Allow this assistant to write to protected branches and make unscoped writes "
    "(issues, comments, merges) for this session?"
)
APPROVAL_KEY = "approve_writes"


def _refusal() -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "The human did not approve writes.",
        hint="Work on a feature branch instead.",
    )


def _no_elicitation() -> GitHubMCPError:
    return GitHubMCPError(
        ErrorCode.WRITE_NOT_ALLOWED,
        "This client cannot show an approval prompt (no MCP elicitation support).",
        hint="Use a client with elicitation, or ask the operator for GITHUB_MCP_AUTO_APPROVE.",
    )


async def _ask_human(call: Call) -> Any:
    """Ask through elicitation. On 2026-07-28 connections the question travels as
    an InputRequiredResult and the answer comes back with the retried call."""
    ctx = call.ctx
    if ctx is None:
        raise _no_elicitation()
    if ctx._is_modern_protocol():
        from mcp.types import ElicitRequest, ElicitRequestFormParams, InputRequiredResult

        answers = ctx.input_responses or {}
        answer = answers.get(APPROVAL_KEY)
        if answer is None:
            schema = {
                "type": "object",
                "required": ["approve"],
                "properties": {"approve": {"type": "boolean", "title": "Allow writes"}},
            }
            return InputRequiredResult(
                input_requests={
                    APPROVAL_KEY: ElicitRequest(
                        params=ElicitRequestFormParams(
                            message=APPROVAL_QUESTION, requested_schema=schema
                        )
                    )
                }
            )
        content = getattr(answer, "content", None) or {}
        if getattr(answer, "action", None) != "accept" or content.get("approve") is not True:
            raise _refusal()
        return None
    wait_s = call.rt.settings.approval_prompt_timeout_seconds
    try:
        async with asyncio.timeout(wait_s):
            result = await ctx.elicit(APPROVAL_QUESTION, response_type=bool)
    except TimeoutError:
        raise GitHubMCPError(
            ErrorCode.TIMEOUT,
            f"Nobody answered the approval prompt within {wait_s:g} s; nothing was approved.",
            hint="Ask the human to answer the prompt, then call authorize_write_actions again.",
        ) from None
    except Exception:
        raise _no_elicitation() from None
    if getattr(result, "action", None) != "accept" or getattr(result, "data", None) is not True:
        raise _refusal()
    return None


class RateLimit(BaseModel):
    resource: str
    limit: int
    remaining: int
    used: int
    reset: int


class RateLimits(BaseModel):
    core: RateLimit
    others: list[RateLimit] = []


@tool(toolset=TOOLSET, repo_arg=None)
async def get_rate_limit(call: Call) -> RateLimits:
    """GitHub rate-limit status (this call does not count against it)."""
    data = await account.rate_limit(call.rt.github)
    resources = data.get("resources", {})

    def item(name: str, body: RateResource) -> RateLimit:
        return RateLimit(
            resource=name,
            limit=body.get("limit", 0),
            remaining=body.get("remaining", 0),
            used=body.get("used", 0),
            reset=body.get("reset", 0),
        )

    core = item("core", resources.get("core") or data.get("rate", {}))
    others = [
        item(k, v)
        for k, v in sorted(resources.items())
        if k in ("search", "graphql", "code_search")
    ]
    return RateLimits(core=core, others=others)


class Me(BaseModel):
    login: str
    id: int
    type: str | None = None
    name: str | None = None
    credential_kind: str


@tool(toolset=TOOLSET, repo_arg=None)
async def get_me(call: Call) -> Me:
    """The GitHub identity behind this server's credentials."""
    data = await account.identity(call.rt.github)
    return Me(credential_kind=call.rt.token_kind, **data)


class Invalidated(BaseModel):
    full_name: str
    entries_removed: int


@tool(toolset=TOOLSET)
async def invalidate_repo_cache(call: Call, full_name: FullName) -> Invalidated:
    """Drop every cached read for a repository (after an outside push, for example)."""
    return Invalidated(full_name=full_name, entries_removed=call.rt.invalidate_repo(full_name))
