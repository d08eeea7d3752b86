"""MCP prompts and resources that teach an assistant how to use this server well, free of
the MCP framework: every transport serves these same definitions (the stdio server from
serving/stdio_guides.py, the HTTP server through serving/framework_guides.py).

The texts are built from what this server actually exposes: a line that needs a tool
which is not served (a toolset switched off, read-only mode) is left out, and the
approval paragraph follows GITHUB_MCP_APPROVAL_MODE. Tool names are written in
backticks, and a test checks that each one is in tools/list.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from github_mcp.catalog import prompt_security
from github_mcp.catalog.prompt_texts import Texts
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.params import check_full_name, parse_pr_ref

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime

CONTRACT_URI = "github-mcp://operating-contract"
CONTRACT_NAME = "operating_contract"
CONTRACT_DESCRIPTION = "How to work with this server (the start_session prompt as a resource)."
MAX_GOAL_CHARS = 2000
PR_ARG = "The pull request: owner/repo#N or its URL."
REPO_ARG = "The repository, owner/repo."


class PromptArgumentError(ValueError):
    """A prompt argument the caller got wrong (answered -32602)."""


@dataclass(frozen=True)
class PromptArg:
    name: str
    description: str
    required: bool = True


@dataclass(frozen=True)
class PromptDef:
    name: str
    description: str
    arguments: tuple[PromptArg, ...]
    render: Callable[[dict[str, str]], str]

    def missing(self, given: dict[str, str]) -> list[str]:
        return [a.name for a in self.arguments if a.required and a.name not in given]


def prompts(rt: Runtime) -> dict[str, PromptDef]:
    """The prompts of one server, by name, in listing order."""
    texts = Texts(rt)
    pr = (PromptArg("pr", PR_ARG),)
    defs = [
        PromptDef(
            "start_session",
            "The operating contract: branch first, patch, verify, approval, CI.",
            (),
            lambda args: texts.contract(),
        ),
        PromptDef(
            "fix_failing_ci",
            "Diagnose and fix the failing CI of a PR.",
            pr,
            lambda args: texts.fix_failing_ci(_pr_arg(args["pr"])),
        ),
        PromptDef(
            "address_review_comments",
            "Work through a PR's unresolved review threads.",
            pr,
            lambda args: texts.address_review_comments(_pr_arg(args["pr"])),
        ),
        PromptDef(
            "ship_change",
            "Take a change from goal to a merged PR, on a branch.",
            (
                PromptArg("full_name", REPO_ARG),
                PromptArg("goal", "What should change, in a sentence or two."),
            ),
            lambda args: texts.ship_change(_repo_arg(args["full_name"]), _goal_arg(args["goal"])),
        ),
        PromptDef(
            "fix_dependabot_alert",
            "Take a Dependabot alert to a PR that bumps the dependency, tests run.",
            (
                PromptArg("full_name", REPO_ARG),
                PromptArg("number", "The Dependabot alert's number (an integer)."),
            ),
            lambda args: prompt_security.fix_dependabot_alert(
                texts, _repo_arg(args["full_name"]), _alert_arg(args["number"])
            ),
        ),
    ]
    return {d.name: d for d in defs}


def contract(rt: Runtime) -> str:
    """The operating contract resource (the start_session prompt's text)."""
    return Texts(rt).contract()


def _pr_arg(pr: str) -> str:
    try:
        full_name, number = parse_pr_ref(str(pr).strip())
    except GitHubMCPError as exc:
        raise PromptArgumentError(exc.message) from None
    return f"{full_name}#{number}"


def _repo_arg(full_name: str) -> str:
    try:
        return check_full_name(str(full_name).strip())
    except ValueError as exc:
        raise PromptArgumentError(str(exc)) from None


def _goal_arg(goal: str) -> str:
    goal = str(goal).strip()
    if not 1 <= len(goal) <= MAX_GOAL_CHARS:
        raise PromptArgumentError(f"goal must be 1-{MAX_GOAL_CHARS} characters")
    return goal


def _alert_arg(number: str) -> int:
    try:
        value = int(str(number).strip())
    except ValueError:
        raise PromptArgumentError("number must be an alert number (1 or more)") from None
    if not 1 <= value <= 10_000_000:
        raise PromptArgumentError("number must be an alert number (1 or more)")
    return value
