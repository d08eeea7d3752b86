"""MCP prompts and resources that teach an assistant how to use this server well.

The texts are built from what this server actually exposes: a line that needs a tool
which is not registered (a toolset switched off, read-only mode) is left out, and the
approval paragraph follows GITHUB_MCP_APPROVAL_MODE. Tool names are written in
backticks, and a test checks that each one is in tools/list.
"""

# No `from __future__ import annotations`: fastmcp reads the prompt and resource
# signatures at runtime, and string annotations of module aliases would not resolve.
import base64
import mimetypes
from typing import TYPE_CHECKING, Any

from fastmcp import Context
from fastmcp.resources import ResourceContent, ResourceResult

from github_mcp.catalog import prompt_security
from github_mcp.catalog.completions import Completer
from github_mcp.catalog.prompt_texts import Texts
from github_mcp.catalog.protocol_errors import PromptArgumentError, ResourceFailure
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.params import check_full_name, check_path, check_ref, parse_pr_ref
from github_mcp.pipeline.answer import ToolAnswer

if TYPE_CHECKING:
    from fastmcp import FastMCP

    from github_mcp.pipeline.runtime import Runtime

CONTRACT_URI = "github-mcp://operating-contract"
BLOB_TEMPLATE = "repo://{owner}/{repo}/blob/{ref}/{path*}{?max_bytes,allow_binary}"
MAX_GOAL_CHARS = 2000


def _pr_arg(pr: str) -> str:
    try:
        full_name, number = parse_pr_ref(pr.strip())
    except GitHubMCPError as exc:
        raise PromptArgumentError(exc.message) from None
    return f"{full_name}#{number}"


def register_prompts_and_resources(mcp: "FastMCP", rt: "Runtime") -> None:
    texts = Texts(rt)

    @mcp.prompt(
        name="start_session",
        description="The operating contract: branch first, patch, verify, approval, CI.",
    )
    def start_session() -> str:
        return texts.contract()

    @mcp.prompt(name="fix_failing_ci", description="Diagnose and fix the failing CI of a PR.")
    def fix_failing_ci(pr: str) -> str:
        """Render the prompt.

        Args:
            pr: The pull request: owner/repo#N or its URL.
        """
        return texts.fix_failing_ci(_pr_arg(pr))

    @mcp.prompt(
        name="address_review_comments",
        description="Work through a PR's unresolved review threads.",
    )
    def address_review_comments(pr: str) -> str:
        """Render the prompt.

        Args:
            pr: The pull request: owner/repo#N or its URL.
        """
        return texts.address_review_comments(_pr_arg(pr))

    @mcp.prompt(
        name="ship_change",
        description="Take a change from goal to a merged PR, on a branch.",
    )
    def ship_change(full_name: str, goal: str) -> str:
        """Render the prompt.

        Args:
            full_name: The repository, owner/repo.
            goal: What should change, in a sentence or two.
        """
        try:
            name = check_full_name(full_name.strip())
        except ValueError as exc:
            raise PromptArgumentError(str(exc)) from None
        if not 1 <= len(goal.strip()) <= MAX_GOAL_CHARS:
            raise PromptArgumentError(f"goal must be 1-{MAX_GOAL_CHARS} characters")
        return texts.ship_change(name, goal.strip())

    @mcp.prompt(
        name="fix_dependabot_alert",
        description="Take a Dependabot alert to a PR that bumps the dependency, tests run.",
    )
    def fix_dependabot_alert(full_name: str, number: int) -> str:
        """Render the prompt.

        Args:
            full_name: The repository, owner/repo.
            number: The Dependabot alert's number.
        """
        try:
            name = check_full_name(full_name.strip())
        except ValueError as exc:
            raise PromptArgumentError(str(exc)) from None
        if not 1 <= number <= 10_000_000:
            raise PromptArgumentError("number must be an alert number (1 or more)")
        return prompt_security.fix_dependabot_alert(texts, name, number)

    @mcp.resource(
        CONTRACT_URI,
        name="operating_contract",
        mime_type="text/markdown",
        description="How to work with this server (the start_session prompt as a resource).",
    )
    def operating_contract() -> str:
        return texts.contract()

    if "get_file_contents" in rt.bound_specs:
        _register_blob_template(mcp, rt)
    mcp.add_completion_handler(Completer(rt, BLOB_TEMPLATE))


def _register_blob_template(mcp: "FastMCP", rt: "Runtime") -> None:
    from github_mcp.pipeline.registry import run_tool

    spec = rt.bound_specs["get_file_contents"]

    async def file_at_ref(
        owner: str,
        repo: str,
        ref: str,
        path: str,
        ctx: Context,
        max_bytes: int = 65536,
        allow_binary: bool = False,
    ) -> ResourceResult:
        """A file at a ref, read exactly as get_file_contents reads it (limits, binary
        detection, allow-list). Percent-encode '/' in a branch name: feature%2Fx."""
        arguments: dict[str, Any] = {
            "full_name": f"{owner}/{repo}",
            "path": path,
            "ref": ref,
            "max_bytes": max_bytes,
            "allow_binary": allow_binary,
        }
        problem = _check_blob_args(arguments)
        if problem:
            raise ResourceFailure({"error": {"code": "invalid_input", "message": problem}})
        result = await run_tool(spec, rt, arguments, ctx)
        if not isinstance(result, ToolAnswer):  # a read never asks the user; say so if it does
            raise ResourceFailure(
                {"error": {"code": "internal", "message": "a read asked for input"}}
            )
        payload = result.structured
        if result.is_error:
            raise ResourceFailure(payload)
        meta: dict[str, Any] = {
            k: payload[k]
            for k in ("ref", "sha", "truncated", "total_bytes", "size")
            if k in payload
        }
        mime = mimetypes.guess_type(path)[0]
        if payload.get("encoding") == "base64":
            data = base64.b64decode(payload["content"])
            return ResourceResult(
                [ResourceContent(data, mime_type=mime or "application/octet-stream", meta=meta)]
            )
        text_mime = mime if mime and mime.startswith("text/") else "text/plain"
        return ResourceResult([ResourceContent(payload["content"], mime_type=text_mime, meta=meta)])

    mcp.resource(
        BLOB_TEMPLATE,
        name="file_at_ref",
        description="A repository file at a ref (branch, tag or SHA), with get_file_contents' "
        "limits: max_bytes (default 65536, at most 1 MiB); binaries only with "
        "allow_binary=true. Percent-encode '/' in a branch name (feature%2Fx).",
    )(file_at_ref)


def _check_blob_args(arguments: dict[str, Any]) -> str | None:
    try:
        check_full_name(arguments["full_name"])
        check_ref(arguments["ref"])
        check_path(arguments["path"])
    except ValueError as exc:
        return str(exc)
    if not 1 <= arguments["max_bytes"] <= 1024 * 1024:
        return "max_bytes must be between 1 and 1048576"
    return None
