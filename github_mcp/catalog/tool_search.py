"""Ranking tools for a query (find_tools): words matched in the tool's name, its
parameters, its description and its toolset, each weighted by how rare the word is among
the tools, so "comment" counts for more than "pull" or "request".

Words are reduced to a rough stem on both sides (comments, commenting -> comment; labels,
label -> label), and a few everyday synonyms map to the words the tools use.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from github_mcp.pipeline.tool_spec import ToolSpec

# Weights per place a word is found: the name says most about what a tool does.
NAME, PARAMETER, DESCRIPTION, TOOLSET = 3.0, 1.5, 1.0, 1.0
STOP = frozenset(
    "a an and are as at be by can do does for from get how i in into is it its me my "
    "of on or so that the this to what when which why with".split()
)
# everyday word -> the word the tools say it with
SYNONYMS = {
    "prs": "pr",
    "ci": "workflow",
    "build": "workflow",
    "test": "test",
    "approve": "authorize",
    "approval": "authorize",
    "permission": "authorize",
    "open": "create",
    "read": "content",
    "edit": "update",
    "modify": "update",
    "change": "update",
    "review": "review",
    "rerun": "rerun",
    "retry": "rerun",
    "tag": "label",
    "conflict": "conflict",
    "find": "search",
    "grep": "search",
    "shell": "terminal",
    "command": "terminal",
    "clone": "workspace",
    "delete": "delete",
    "remove": "delete",
    "diff": "diff",
    "patch": "patch",
    "log": "log",
    "ready": "readiness",
    "mergeable": "readiness",
    "who": "me",
    "whoami": "me",
    "identity": "me",
    "label": "label",
}


def stem(word: str) -> str:
    """A rough stem, the same on both sides of a match (not a linguist's)."""
    if len(word) > 4 and word.endswith("ies"):
        word = word[:-3] + "y"
    elif len(word) > 5 and word.endswith("ing"):
        word = word[:-3]
    elif len(word) > 4 and word.endswith("ed"):
        word = word[:-2]
    elif len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
        word = word[:-1]
    if len(word) > 3 and word.endswith("e"):
        word = word[:-1]
    return word


# Verbs say less than the thing acted on ("set labels": labels decides), so they count half.
VERBS = frozenset(
    stem(v)
    for v in "set add update create open delete remove list get make put change edit".split()
)


def words(text: str, stop: frozenset[str] = STOP, *, query: bool = False) -> set[str]:
    """Stems of the words of `text`; a query's also in the words the tools use."""
    found = set()
    text = re.sub(r"pull[\s_-]*requests?", "pr", text.lower())  # one idea, counted once
    for raw in re.split(r"[^a-z0-9]+", text):
        if not raw or raw in stop:
            continue
        if query and raw in SYNONYMS:
            found.add(stem(SYNONYMS[raw]))
        found.add(stem(raw))
    return found


def _fields(spec: ToolSpec, params: Mapping[str, Any]) -> list[tuple[float, set[str]]]:
    properties = (params or {}).get("properties") or {}
    names = " ".join(properties)
    notes = " ".join(str(p.get("description", "")) for p in properties.values())
    return [
        (NAME, words(spec.name, frozenset())),  # get_me: every word of a name counts
        (PARAMETER, words(names) | words(notes)),
        (DESCRIPTION, words(spec.description)),
        (TOOLSET, words(spec.toolset.value)),
    ]


def rank(
    specs: Sequence[ToolSpec], params: Mapping[str, Mapping[str, Any]], query: str
) -> list[ToolSpec]:
    """The tools matching at least one query word, best first (ties by name); every tool,
    by name, for an empty query."""
    # only stop words ("who am I"): they count
    wanted = words(query, query=True) or words(query, frozenset(), query=True)
    if not wanted:
        return sorted(specs, key=lambda s: s.name)
    fields = {s.name: _fields(s, params.get(s.name, {})) for s in specs}
    everywhere = {s.name: set().union(*(got for _, got in fields[s.name])) for s in specs}
    total = len(specs)
    rarity = {
        w: math.log((1 + total) / (1 + sum(w in everywhere[n] for n in everywhere))) + 1
        for w in wanted
    }
    exact = query.strip().lower()
    scored = []
    for spec in specs:
        score = 0.0
        for word in wanted:
            best = max((weight for weight, got in fields[spec.name] if word in got), default=0)
            score += best * rarity[word] * (0.5 if word in VERBS else 1.0)
        if score:
            # a name the query covers whole beats one it only touches; its own name, all
            named = fields[spec.name][0][1]
            score += 2 * NAME * len(named & wanted) / max(1, len(named))
            score += 100.0 if exact == spec.name else 0.0
            scored.append((-score, spec.name, spec))
    return [spec for _, _, spec in sorted(scored)]
