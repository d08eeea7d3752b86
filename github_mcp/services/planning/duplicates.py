"""Similar open issues: keywords from a title (and body) sent to GitHub's issue search as
one OR query, the hits ranked here by how many keywords each shares, title first.

Keywords are lower-case words of letters, digits and underscores only, so nothing a user
wrote can become a search qualifier or operator.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.issues.issues import get_issue as get_issue  # the planning tools' face
from github_mcp.services.issues.issues import linked
from github_mcp.services.shared.content import cut_text

MAX_KEYWORDS = 6  # GitHub allows five AND/OR/NOT operators in one query
SCAN = 50
WORD = re.compile(r"[a-z0-9_]{3,}")
STOPWORDS = frozenset(
    """the and for with when this that from into not but are was were has have had its
    can cannot does doesn don should would could will after before about while there
    their them then than some any all our your you out get got use using used issue
    bug error fails failed fail failing work works working""".split()
)


class SimilarIssue(BaseModel):
    number: int
    title: str
    url: str
    score: float = Field(description="Share of the keywords it matches, title counting double.")


class SimilarIssues(BaseModel):
    keywords: list[str]
    issues: list[SimilarIssue]


def keywords(title: str, body: str = "") -> list[str]:
    """Distinct words of the title, then the body, without common words."""
    found: list[str] = []
    for word in WORD.findall(f"{title}\n{body}".lower()):
        if word not in STOPWORDS and word not in found and not word.isdigit():
            found.append(word)
        if len(found) == MAX_KEYWORDS:
            break
    return found


def _score(words: list[str], title: str, body: str) -> float:
    title, body = title.lower(), body.lower()
    points = sum(2 if w in title else 1 if w in body else 0 for w in words)
    return round(points / (2 * len(words)), 2)


async def find_similar(
    github: GitHubClient,
    full_name: str,
    title: str,
    body: str = "",
    *,
    exclude: int | None = None,
    limit: int = 5,
) -> SimilarIssues:
    words = keywords(title, body)
    if not words:
        raise invalid_input(
            "no keywords to search for", hint="Give a title with a few distinctive words."
        )
    query = f"repo:{full_name} is:issue is:open " + " OR ".join(words)
    page = await github.paginate(
        "/search/issues", params={"q": query}, limit=SCAN, items_key="items", repo=full_name
    )
    ranked = []
    for item in page.items:
        if item["number"] == exclude or "pull_request" in item:
            continue
        ref = linked(item, full_name)
        text = cut_text(strip_invisible(item.get("body") or ""), 8000)[0]
        score = _score(words, ref.title, text)
        ranked.append(SimilarIssue(number=ref.number, title=ref.title, url=ref.url, score=score))
    ranked.sort(key=lambda s: (-s.score, s.number))
    return SimilarIssues(keywords=words, issues=[s for s in ranked if s.score > 0][:limit])
