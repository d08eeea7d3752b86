"""Arguments as the pipeline settles them before the allow-list and the gate read them:
a PR named by reference, every branch and ref in its one canonical spelling, and
look-alike branch names refused."""

from __future__ import annotations

import typing
from typing import TYPE_CHECKING, Any

from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.params import parse_pr_ref
from github_mcp.kernel.refnames import (
    canonical_any_ref,
    canonical_branch,
    lookalike_problem,
    require_canonical,
)

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.tool_spec import ToolSpec


def apply_pr_ref(kwargs: dict[str, Any]) -> None:
    pr = kwargs.get("pr")
    if pr:
        full_name, number = parse_pr_ref(pr)
        given = kwargs.get("full_name")
        if given and given.lower() != full_name.lower():
            raise invalid_input(
                "pr and full_name name different repositories",
                hint="Give only pr, or give full_name and number that match it.",
            )
        if kwargs.get("number") not in (None, number):
            raise invalid_input(
                "pr and number name different pull requests",
                hint="Give only pr, or give a number that matches it.",
            )
        kwargs["full_name"], kwargs["number"] = full_name, number
    elif not kwargs.get("full_name") or not kwargs.get("number"):
        raise invalid_input(
            "give pr ('owner/repo#N' or URL) or full_name and number",
            hint=("Give pr as 'owner/repo#N' or the PR's URL, or give both full_name and number."),
        )


_REF_PARAMS: dict[str, tuple[tuple[str, bool], ...]] = {}


def ref_params(spec: ToolSpec) -> tuple[tuple[str, bool], ...]:
    """(argument, is_branch) for every parameter typed as params.Ref or params.Branch."""
    found = _REF_PARAMS.get(spec.name)
    if found is None:
        params, _ = spec.signature()
        found = tuple(
            (p.name, kind == "branch") for p in params if (kind := _ref_kind(p.annotation))
        )
        _REF_PARAMS[spec.name] = found
    return found


def _ref_kind(hint: Any) -> str | None:
    for meta in getattr(hint, "__metadata__", ()):
        func = getattr(meta, "func", None)
        if func is canonical_branch:
            return "branch"
        if func is canonical_any_ref:
            return "ref"
    for inner in typing.get_args(hint):  # Optional[...] and other unions
        kind = _ref_kind(inner)
        if kind:
            return kind
    return None


def canonicalize_refs(spec: ToolSpec, kwargs: dict[str, Any]) -> None:
    """Every branch and ref argument in its one canonical spelling, before anything else
    (the allow-list, the effective ref, the gate and the audit log) reads it."""
    for name, is_branch in ref_params(spec):
        value = kwargs.get(name)
        if value is not None:
            kwargs[name] = require_canonical(value, branch=is_branch, arg=name)


async def check_lookalike(rt: Runtime, full_name: str | None, branch: str) -> None:
    if branch.isascii() or not full_name:
        return  # the common case costs nothing
    gate = rt.gate
    protected = [await gate.default_branch(full_name)]
    if gate.is_controller_repo(full_name):
        protected.append(rt.settings.controller_branch)
    problem = lookalike_problem(branch, protected, rt.settings.protected_globs)
    if problem:
        raise invalid_input(
            f"branch {branch!r} is refused: {problem}",
            hint="Use a branch name in one writing system that does not imitate another.",
        )
