"""A file's blame over GitHub's GraphQL API (`Commit.blame(path:)`), made compact: adjacent
lines of one commit are one range, commits are listed once under the shortest prefix of
their SHA that is unique among them (7 characters at least), and a line window cuts the
ranges to the lines asked for."""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict

from pydantic import BaseModel, Field

from github_mcp.github.client import GitHubClient
from github_mcp.kernel.errors import ErrorCode, GitHubMCPError, invalid_input
from github_mcp.kernel.hidden_text import strip_invisible
from github_mcp.services.shared.content import cut_text

MAX_RANGES = 300
MIN_PREFIX = 7

QUERY = """
query($owner: String!, $name: String!, $expression: String!, $path: String!) {
  repository(owner: $owner, name: $name) {
    object(expression: $expression) {
      ... on Commit {
        oid
        blame(path: $path) {
          ranges {
            startingLine endingLine age
            commit { oid messageHeadline author { name date user { login } } }
          }
        }
      }
    }
  }
}
"""


class RawAuthor(TypedDict, total=False):
    name: str | None
    date: str | None
    user: dict[str, Any] | None


class RawCommit(TypedDict):
    oid: str
    messageHeadline: NotRequired[str | None]
    author: NotRequired[RawAuthor | None]


class RawRange(TypedDict):
    """One range of GitHub's `Commit.blame(path:)` answer, as QUERY asks for it."""

    startingLine: int
    endingLine: int
    age: int
    commit: RawCommit


class BlameCommit(BaseModel):
    message: str = Field(description="First line of the commit message, cut to 120 characters.")
    author: str | None = Field(None, description="GitHub login, else the git author name.")
    date: str | None = None


class BlameRange(BaseModel):
    start: int
    end: int
    commit: str = Field(description="Key into `commits`: the SHA's shortest unique prefix.")
    age: int = Field(description="GitHub's recency bucket: 1 newest to 10 oldest.")


class Blame(BaseModel):
    path: str
    commit_sha: str = Field(description="The commit whose file was blamed (the ref resolved).")
    ranges: list[BlameRange]
    commits: dict[str, BlameCommit]
    truncated: bool = Field(
        False, description="More ranges than one answer holds: ask for a line window."
    )


async def blame(
    github: GitHubClient,
    full_name: str,
    path: str,
    ref: str | None,
    window: tuple[int, int | None],
) -> Blame:
    """The blame of `path` at `ref` (the default branch when None), in `window` (first
    line, last line or None for the end)."""
    if not path.strip("/"):
        raise invalid_input("path names no file", hint="Pass a file's repository path.")
    if window[1] is not None and window[1] < window[0]:
        raise invalid_input(
            "end_line is before start_line",
            hint=(
                "Give end_line at or after start_line, or leave it out to blame to the "
                "end of the file."
            ),
        )
    owner, name = full_name.split("/", 1)
    variables = {"owner": owner, "name": name, "expression": ref or "HEAD", "path": path}
    data = await github.graphql(QUERY, variables)
    found = ((data or {}).get("repository") or {}).get("object")
    if not found or "blame" not in found:
        raise GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"No commit {ref or 'HEAD'!r} in {full_name}.",
            hint="Pass a branch, tag or commit SHA that exists (list_branches).",
        )
    raw: list[RawRange] = found["blame"]["ranges"]
    return compact(path, found["oid"], raw, window)


def compact(path: str, oid: str, raw: list[RawRange], window: tuple[int, int | None]) -> Blame:
    first, last = window
    merged = _merge(_clip(raw, first, last))
    keys = _short_keys({r["commit"]["oid"] for r in merged})
    ranges = [
        BlameRange(start=r["startingLine"], end=r["endingLine"], commit=keys[r["commit"]["oid"]],
                   age=r["age"])
        for r in merged[:MAX_RANGES]
    ]  # fmt: skip
    used = {r.commit for r in ranges}
    commits = {
        keys[r["commit"]["oid"]]: _commit(r["commit"])
        for r in merged[:MAX_RANGES]
        if keys[r["commit"]["oid"]] in used
    }
    return Blame(
        path=path,
        commit_sha=oid,
        ranges=ranges,
        commits=commits,
        truncated=len(merged) > MAX_RANGES,
    )


def _clip(raw: list[RawRange], first: int, last: int | None) -> list[RawRange]:
    kept: list[RawRange] = []
    for item in raw:
        start, end = max(item["startingLine"], first), item["endingLine"]
        if last is not None:
            end = min(end, last)
        if start <= end:
            kept.append({**item, "startingLine": start, "endingLine": end})
    return kept


def _merge(ranges: list[RawRange]) -> list[RawRange]:
    """Adjacent ranges of one commit become one (git splits them by where lines came from)."""
    merged: list[RawRange] = []
    for item in sorted(ranges, key=lambda r: r["startingLine"]):
        before = merged[-1] if merged else None
        if (
            before is not None
            and before["commit"]["oid"] == item["commit"]["oid"]
            and before["endingLine"] + 1 == item["startingLine"]
        ):
            before["endingLine"] = item["endingLine"]
        else:
            merged.append(item.copy())
    return merged


def _short_keys(oids: set[str]) -> dict[str, str]:
    """Each SHA's shortest prefix (MIN_PREFIX at least) no other SHA here shares."""
    keys = {}
    for oid in oids:
        size = MIN_PREFIX
        while size < len(oid) and any(o != oid and o.startswith(oid[:size]) for o in oids):
            size += 1
        keys[oid] = oid[:size]
    return keys


def _commit(raw: RawCommit) -> BlameCommit:
    author = raw.get("author") or {}
    login = (author.get("user") or {}).get("login")
    message = cut_text(strip_invisible(raw.get("messageHeadline") or ""), 480)[0][:120]
    return BlameCommit(message=message, author=login or author.get("name"), date=author.get("date"))
