"""The remote state a human approves for a gated write, read fresh (uncached) from GitHub.

An approval names these facts (a pull request's head SHA and base, a branch's head, a
run's commit); the write then sends them as its precondition or re-reads them first, so
what lands is what the human saw. The commits and files are what the page shows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace

from github_mcp.github.client import GitHubClient, encode_path
from github_mcp.kernel.errors import GitHubMCPError, conflict
from github_mcp.services.shared.branches import branch_head
from github_mcp.services.shared.github_json import Commit, Comparison
from github_mcp.services.shared.repo_facts import repo_path

MAX_COMMITS = 250  # GitHub's compare lists at most 250 commits
MAX_FILES = 300


@dataclass(frozen=True)
class CommitNote:
    sha: str
    message: str  # in full

    def line(self) -> str:
        first = self.message.strip().splitlines()[0] if self.message.strip() else ""
        return f"{self.sha[:12]} {first}"


@dataclass(frozen=True)
class FileCount:
    path: str
    status: str
    additions: int
    deletions: int
    patch: str | None = None


@dataclass(frozen=True)
class RemoteState:
    """The facts a write enforces (name, value), and what the human is shown with them."""

    facts: tuple[tuple[str, str], ...]
    commits: tuple[CommitNote, ...] = ()
    commits_total: int = 0
    files: tuple[FileCount, ...] = ()
    since: str | None = None  # what the commits are counted from (the base)
    texts: tuple[tuple[str, str], ...] = ()  # the PR's own title and body, in full

    def get(self, name: str) -> str | None:
        return dict(self.facts).get(name)


async def pull_state(github: GitHubClient, full_name: str, number: int) -> RemoteState:
    """A pull request's head SHA and base, with its commits and files since the base."""
    pr = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    head_sha, base = pr["head"]["sha"], pr["base"]["ref"]
    facts = (("head_sha", head_sha), ("head", pr["head"]["ref"]), ("base", base))
    state = await _with_history(github, full_name, facts, base, head_sha)
    texts = (("PR title", str(pr.get("title") or "")), ("PR body", str(pr.get("body") or "")))
    return replace(state, texts=tuple((k, v) for k, v in texts if v))


async def branch_state(
    github: GitHubClient, full_name: str, branch: str, since: str | None = None
) -> RemoteState:
    """A branch's head SHA ('absent' when there is no such branch), with the commits on it
    since `since` (the default branch, for a branch about to be deleted)."""
    head = await branch_head(github, full_name, branch)
    facts = (("head_sha", head or "absent"),)
    if head is None or since is None or since == branch:
        return RemoteState(facts)
    return await _with_history(github, full_name, facts, since, head)


async def run_state(github: GitHubClient, full_name: str, run_id: int) -> RemoteState:
    """A workflow run's commit and branch: a re-run runs that commit again."""
    run = await github.request_json("GET", f"{repo_path(full_name)}/actions/runs/{run_id}")
    facts = (("head_sha", str(run.get("head_sha"))), ("head", str(run.get("head_branch"))))
    return RemoteState(facts)


async def tree_paths(github: GitHubClient, full_name: str, ref: str) -> list[str]:
    """Every path on `ref` (GitHub's recursive tree; a truncated one gives what it lists),
    to warn about a new name that looks like an existing one."""
    path = f"{repo_path(full_name)}/git/trees/{encode_path(ref)}"
    data = await github.request_json("GET", path, params={"recursive": "1"})
    return [str(e.get("path")) for e in (data or {}).get("tree") or []]


async def new_commits(github: GitHubClient, full_name: str, old: str, new: str) -> list[str]:
    """One line per commit in `new` that `old` lacks (what arrived since an approval)."""
    if old == new or "absent" in (old, new):
        return []
    try:
        data = await _compare(github, full_name, old, new)
    except GitHubMCPError:
        return [f"{new[:12]} (the commits could not be listed)"]
    return [_note(c).line() for c in data.get("commits") or []][:MAX_COMMITS]


def moved(
    approved: RemoteState, now: Mapping[str, str | None], commits: list[str]
) -> GitHubMCPError:
    """The write's `conflict`: what changed since the approval, naming new commits."""
    changes = [
        f"{name} {value[:12]} -> {(now.get(name) or 'absent')[:12]}"
        for name, value in approved.facts
        if name in now and now[name] != value
    ]
    listed = "; new commits: " + ", ".join(commits) if commits else ""
    return conflict(
        "The remote state changed since the human approved this write ("
        + "; ".join(changes) + f"){listed}. Nothing was written.",
        hint="A fresh approval is needed: call the tool again so the human sees the new "
        "state, or pass the new head as expected_head_sha after reviewing it.",
        approved=dict(approved.facts),
        new_commits=commits,
    )  # fmt: skip


async def _with_history(
    github: GitHubClient, full_name: str, facts: tuple[tuple[str, str], ...], base: str, head: str
) -> RemoteState:
    try:
        data = await _compare(github, full_name, base, head)
    except GitHubMCPError:
        return RemoteState(facts, since=base)  # the facts stand; the page says it lacks history
    commits = tuple(_note(c) for c in (data.get("commits") or [])[:MAX_COMMITS])
    files = tuple(
        FileCount(
            str(f.get("filename")), str(f.get("status")), int(f.get("additions") or 0),
            int(f.get("deletions") or 0), f.get("patch"),
        )
        for f in (data.get("files") or [])[:MAX_FILES]
    )  # fmt: skip
    total = int(data.get("total_commits") or len(commits))
    return RemoteState(facts, commits, total, files, since=base)


async def _compare(github: GitHubClient, full_name: str, base: str, head: str) -> Comparison:
    path = f"{repo_path(full_name)}/compare/{encode_path(base)}...{encode_path(head)}"
    data: Comparison = await github.request_json("GET", path)
    return data


def _note(commit: Commit) -> CommitNote:
    info = commit.get("commit")  # read tolerantly: a note must not fail the write's check
    return CommitNote(str(commit.get("sha")), (info.get("message") if info else None) or "")


async def require_pull_state(
    github: GitHubClient, full_name: str, number: int, approved: RemoteState
) -> None:
    """Re-read the PR just before a write whose endpoint has no precondition (a PATCH of
    its base): `conflict` naming the new commits when its head or base moved."""
    pr = await github.request_json("GET", f"{repo_path(full_name)}/pulls/{number}")
    now: dict[str, str | None] = {
        "head_sha": pr["head"]["sha"],
        "head": pr["head"]["ref"],
        "base": pr["base"]["ref"],
    }
    await _require(github, full_name, approved, now)


async def require_branch_state(
    github: GitHubClient, full_name: str, branch: str, approved: RemoteState
) -> None:
    """Re-read a branch's head just before a write on it (a dispatch): `conflict` when it
    is not the approved head."""
    now: dict[str, str | None] = {"head_sha": await branch_head(github, full_name, branch)}
    now["head_sha"] = now["head_sha"] or "absent"
    await _require(github, full_name, approved, now)


async def require_facts(
    github: GitHubClient, full_name: str, approved: RemoteState, now: dict[str, str]
) -> None:
    """`conflict` naming the new commits unless `now` agrees with the approved facts."""
    await _require(github, full_name, approved, now)


async def _require(
    github: GitHubClient, full_name: str, approved: RemoteState, now: Mapping[str, str | None]
) -> None:
    error = await what_moved(github, full_name, approved, now)
    if error is not None:
        raise error


async def what_moved(
    github: GitHubClient, full_name: str, approved: RemoteState, now: Mapping[str, str | None]
) -> GitHubMCPError | None:
    """The `conflict` for facts that changed since the approval (naming the commits that
    arrived on every head that moved), or None when nothing did."""
    changed = [(n, v, now[n]) for n, v in approved.facts if n in now and now[n] != v]
    if not changed:
        return None
    commits: list[str] = []
    for name, old, new in changed:
        if name.endswith("head_sha") and new:
            commits += await new_commits(github, full_name, old, new)
    return moved(approved, now, commits)
