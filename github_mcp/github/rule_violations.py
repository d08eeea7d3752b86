"""GitHub's refusals by repository rules (rulesets and classic branch protection), read
from a REST or GraphQL message or a push's remote lines, as one structured error:
`rule_violation`, the rules GitHub listed, and a hint on how to get the change in.

GitHub's words: REST and GraphQL say "Repository rule violations found" followed by the
rules, one per paragraph; classic protection says "Protected branch update failed for
refs/heads/X."; a push prints "GH013: Repository rule violations found for refs/heads/X."
(or GH006 for protection) and lists the rules as "- <rule>" remote lines.
"""

from __future__ import annotations

import re
from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring.observability import redact

RULES_PREFIX = "Repository rule violations found"
PROTECTION_PREFIX = "Protected branch update failed"
_PUSH_MARKERS = ("GH013:", "GH006:")
_PUSH_RULE = re.compile(r"^remote:\s+(?:-|error:)\s+(.+?)\s*$", re.MULTILINE)
MAX_RULES = 10
SIGNATURE_HINT = (
    " Commits made through the Git data API or pushed by git are not signed by GitHub: "
    "a branch that requires verified signatures takes commits GitHub signs itself (GraphQL "
    "createCommitOnBranch, merges), or signed ones. This server makes its commits through "
    "createCommitOnBranch with GITHUB_MCP_SIGNED_COMMITS=auto (the default, when it can read "
    "the rule) or always."
)


def is_rule_refusal(message: str) -> bool:
    return message.startswith((RULES_PREFIX, PROTECTION_PREFIX))


def rules_in(message: str) -> list[str]:
    """The rules a REST or GraphQL refusal lists (its paragraphs after the first)."""
    parts = [p.strip() for p in message.split("\n\n")]
    return [redact(p)[:200] for p in parts[1:] if p][:MAX_RULES]


def rules_in_push(stderr: str) -> list[str] | None:
    """The rules a refused push names on its remote lines; None if it is no rule refusal."""
    if not any(marker in stderr for marker in _PUSH_MARKERS):
        return None
    found = []
    for line in _PUSH_RULE.findall(stderr):
        if line.startswith(_PUSH_MARKERS) or line in found:
            continue
        found.append(redact(line)[:200])
    return found[:MAX_RULES]


def rule_violation(action: str, rules: list[str], **details: Any) -> GitHubMCPError:
    """The error for a change the branch's rules refused; nothing was changed by it."""
    listed = "; ".join(rules) if rules else "see the branch's rules"
    hint = (
        "The branch's repository rules or branch protection refuse this change, so nothing "
        "was changed. Read them with GET /repos/{owner}/{repo}/rules/branches/{branch} (and "
        "the branch's protection); make the change on another branch and open a pull "
        "request, or ask a repository admin."
    )
    if any("signature" in rule.lower() for rule in rules):
        hint += SIGNATURE_HINT
    return GitHubMCPError(
        ErrorCode.RULE_VIOLATION,
        f"GitHub's repository rules refused {action}: {listed}",
        hint=hint,
        rules=rules,
        **details,
    )
