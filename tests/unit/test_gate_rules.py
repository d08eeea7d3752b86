"""The write policy's rules (policy/gate.py), walked over every combination of the facts
they read: no forge, no store, no event loop. A driver plays the pipeline's part, answering
each fact the gate asks for from a scenario and recording what was asked."""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field, replace

from github_mcp.kernel.errors import ErrorCode
from github_mcp.policy.flow_guard import Destination, FlowDecision
from github_mcp.policy.gate import (
    Allow,
    AskHuman,
    Bind,
    CheckGrant,
    Decision,
    Known,
    LookUpDefaultBranch,
    Refuse,
    WriteCall,
    decide,
    effective_ref,
    holds_window,
    protection,
    repo_allowed,
)

REPO = "octo/app"


@dataclass(frozen=True)
class Rules:
    allowlist: tuple[str, ...] = ()
    protected_globs: tuple[str, ...] = ("release/*",)
    repo_default_overrides: dict[str, str] = field(default_factory=dict)
    controller_repo: str | None = None
    controller_branch: str = "ctrl-base"
    approval_mode: str = "tool"
    auto_approve: bool = False


@dataclass(frozen=True)
class World:
    """The answers the pipeline would fetch."""

    default_branch: str = "main"
    window: bool = False
    once: bool = False
    human: bool = False


def drive(call: WriteCall, rules: Rules, world: World) -> tuple[Allow | Refuse, list[str]]:
    known, asked = Known(), []
    for _ in range(10):
        decision: Decision = decide(call, rules, known)
        if isinstance(decision, Allow | Refuse):
            return decision, asked
        if isinstance(decision, LookUpDefaultBranch):
            assert decision.repo == call.repo
            asked.append("default_branch")
            known = replace(known, default_branch=world.default_branch)
        elif isinstance(decision, Bind):
            asked.append("bind")
            known = replace(known, bound=True)
        elif isinstance(decision, CheckGrant):
            asked.append(decision.kind)
            known = replace(known, **{decision.kind: getattr(world, decision.kind)})
        else:
            assert isinstance(decision, AskHuman)
            asked.append("human")
            known = replace(known, human=world.human)
    raise AssertionError(f"the gate kept asking: {asked}")


FLOWS = {
    "none": None,
    "allow": FlowDecision("allow", "nothing_private_read"),
    "ask": FlowDecision("ask", "cross_visibility", ("octo/secret",), Destination(REPO, "public")),
    "deny": FlowDecision("deny", "cross_visibility", ("octo/secret",), Destination(REPO, "public")),
}
BRANCHES = [None, "main", "ctrl-base", "release/1.0", "feature-x"]
CASES = list(
    itertools.product(
        BRANCHES,
        FLOWS,
        [False, True],  # approve_each
        [False, True],  # can_ask
        [False, True],  # auto_approve
        [None, REPO],  # controller repo
        [{}, {REPO: "develop"}],  # default-branch override
        [World(**dict(zip(("window", "once", "human"), bits, strict=True))) for bits in
         itertools.product([False, True], repeat=3)],
    )
)  # fmt: skip


def _expected_reason(branch, controller, override) -> str | None:
    if branch is None:
        return "unscoped_write"
    if controller and branch == "ctrl-base":
        return "controller_branch"
    if branch == (override.get(REPO) or "main"):
        return "default_branch"
    if branch.startswith("release/"):
        return "protected_glob"
    return None


def test_every_combination_follows_the_rules():
    assert len(CASES) == 5120
    for case in CASES:
        try:
            _check(*case)
        except AssertionError as failed:
            raise AssertionError(f"case {case}: {failed}") from failed


def _check(branch, flow_name, each, can_ask, auto, controller, override, world):
    rules = Rules(auto_approve=auto, controller_repo=controller, repo_default_overrides=override)
    flow = FLOWS[flow_name]
    call = WriteCall("update_file", REPO, branch, flow, approve_each=each, can_ask=can_ask)
    outcome, asked = drive(call, rules, world)

    # every fact is asked for at most once, and GitHub only when no rule answers first
    assert len(asked) == len(set(asked))
    needs_lookup = (
        branch is not None and not override and not (controller and branch == "ctrl-base")
    )
    assert ("default_branch" in asked) == needs_lookup

    reason = _expected_reason(branch, controller, override)
    if flow_name == "deny":
        assert isinstance(outcome, Refuse) and outcome.reason == "cross_visibility"
        assert outcome.error.code is ErrorCode.WRITE_NOT_ALLOWED
        assert outcome.error.details["private_repos_read"] == ["octo/secret"]
        assert not {"bind", "window", "once", "human"} & set(asked)
        return
    if flow_name == "ask":
        reason = reason or "cross_visibility"
    if reason is None:
        assert outcome == Allow("feature_branch")
        assert asked in ([], ["default_branch"])
        return
    # gated: the binding is read before any grant is looked at or spent
    assert asked[asked.index("bind") + 1] == "window"
    window_passes = world.window and (not each or auto)
    if window_passes:
        assert outcome == Allow(f"approved_{reason}")
        assert "once" not in asked  # a one-time approval is not spent when a window covers it
    elif world.once:
        assert outcome == Allow(f"approved_once_{reason}")
        assert "human" not in asked
    elif can_ask and world.human:
        assert outcome == Allow(f"human_approved_{reason}", logged=f"human_{reason}")
    else:
        assert isinstance(outcome, Refuse) and outcome.reason == reason
        assert outcome.error.code is ErrorCode.WRITE_NOT_ALLOWED
        assert outcome.error.details["reason"] == reason
    assert ("human" in asked) == (can_ask and not window_passes and not world.once)


def test_the_human_reads_the_guards_reason_with_the_branchs():
    call = WriteCall("update_file", REPO, "main", FLOWS["ask"], can_ask=True)
    known = Known(default_branch="main", bound=True, window=False, once=False)
    question = decide(call, Rules(), known)
    assert isinstance(question, AskHuman) and question.reason == "default_branch"
    assert question.shown.startswith("cross_visibility: ")
    assert question.shown.endswith("; also default_branch")
    assert "octo/secret" in question.shown


def test_refusals_say_why_and_how_to_get_an_approval():
    known = Known(default_branch="main", bound=True, window=False, once=False)
    each = decide(WriteCall("merge_pr", REPO, "main", approve_each=True), Rules(), known)
    assert isinstance(each, Refuse)
    assert each.error.message == f"main is the default branch of {REPO}; it needs approval."
    assert "Each merge_pr call is approved on its own" in (each.error.hint or "")
    env = decide(WriteCall("update_file", REPO, "main"), Rules(approval_mode="env"), known)
    assert isinstance(env, Refuse)
    assert "GITHUB_MCP_AUTO_APPROVE=true" in (env.error.hint or "")
    assert "feature branch" in (env.error.hint or "")
    unscoped = decide(WriteCall("create_gist", None, None), Rules(), known)
    assert isinstance(unscoped, Refuse) and unscoped.reason == "unscoped_write"
    assert "feature branch" not in (unscoped.error.hint or "")


def test_the_allow_list_by_name_and_by_owner():
    rules = Rules(allowlist=("octo/app", "acme/*"))
    assert repo_allowed(rules, "Octo/App") and repo_allowed(rules, "acme/anything")
    assert not repo_allowed(rules, "octo/other") and not repo_allowed(rules, "acmeX/a")
    assert repo_allowed(Rules(), "anyone/anything")  # no list: every repository
    refused = decide(WriteCall("update_file", "octo/other", "feature-x"), rules, Known())
    assert isinstance(refused, Refuse) and refused.reason == "repo_not_allowed"
    assert refused.error.code is ErrorCode.REPO_NOT_ALLOWED
    assert "GITHUB_MCP_REPO_ALLOWLIST" in (refused.error.hint or "")


def test_the_effective_ref():
    rules = Rules(controller_repo=REPO, repo_default_overrides={"octo/pinned": "stable"})
    assert effective_ref(rules, REPO, None, Known()) == "ctrl-base"
    assert effective_ref(rules, "OCTO/APP", "main", Known()) == "ctrl-base"
    assert effective_ref(rules, REPO, "other", Known()) == "other"
    assert effective_ref(rules, "octo/x", "v1", Known()) == "v1"
    assert effective_ref(rules, "octo/pinned", None, Known()) == "stable"
    assert effective_ref(rules, "octo/x", None, Known()) == LookUpDefaultBranch("octo/x")
    assert effective_ref(rules, "octo/x", None, Known(default_branch="develop")) == "develop"


def test_protected_globs_match_the_whole_name_with_case():
    rules = Rules(protected_globs=("release/*", "hotfix-?"))
    known = Known(default_branch="main")
    assert protection(rules, REPO, "release/2", known) == "protected_glob"
    assert protection(rules, REPO, "hotfix-1", known) == "protected_glob"
    assert protection(rules, REPO, "Release/2", known) is None
    assert protection(rules, REPO, "xrelease/2", known) is None
    assert protection(rules, REPO, "hotfix-12", known) is None


def test_only_a_session_or_the_stdio_process_holds_a_window():
    assert holds_window("bearer:abc/session:s1")
    assert holds_window("process:stdio")
    assert not holds_window("bearer:abc")
    assert not holds_window("oauth:alice")
