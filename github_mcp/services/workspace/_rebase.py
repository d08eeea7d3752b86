"""Trial merges and stacked-branch rebases in server-private scratch repositories.

One blobless bare repository per GitHub repository lives under the workspace root's
server-only directory (`.server/scratch/`). User commands never run there, and no user
workspace clone is touched: a trial merge is `git merge-tree --write-tree` (no work tree at
all), and a rebase runs in a throwaway work tree that is removed afterwards. Remote refs
are fetched into `refs/mcp/…`; credentials travel per git call, as everywhere else.
"""

from __future__ import annotations

import asyncio
import re
import secrets
import shutil
import weakref
from dataclasses import dataclass, field
from pathlib import Path

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.kernel.refnames import require_remote_ref
from github_mcp.services.workspace._git import GitResult, GitRunner, git_error
from github_mcp.services.workspace._types import GitCredentials
from github_mcp.services.workspace._validate import (
    check_clone_url,
    validate_full_name,
    validate_ref,
)

MAX_CONFLICT_FILES = 100
MAX_PREVIEWS = 20
MAX_PREVIEW_BLOB = 1 << 20
PREVIEW_LINES = 12
_SHA = re.compile(r"^[0-9a-f]{40}([0-9a-f]{24})?$")


@dataclass
class ConflictFile:
    path: str
    kinds: list[str] = field(default_factory=list)  # git's conflict types: contents, add/add…
    preview: str | None = None  # the first conflict region, markers included


@dataclass
class MergeTrial:
    base_sha: str
    head_sha: str
    clean: bool
    conflicts: list[ConflictFile]


@dataclass
class RebaseOutcome:
    status: str  # rebased | up_to_date | conflict
    old_sha: str
    new_sha: str | None = None
    replayed: int = 0
    pushed: bool = False
    conflicts: list[str] = field(default_factory=list)
    failed_commit: str | None = None


def _mirror(ref: str) -> str:
    """Where a remote ref is kept locally: refs/heads/x -> refs/mcp/heads/x."""
    return "refs/mcp/" + ref.removeprefix("refs/")


def parse_merge_tree_z(out: str) -> tuple[str, list[ConflictFile]]:
    """Parse `git merge-tree --write-tree -z --name-only` output: the tree, then conflicted
    paths, an empty field, then messages as <count> <paths…> <type> <text> fields."""
    fields = out.split("\0")
    tree = fields[0].strip()
    paths: list[str] = []
    i = 1
    while i < len(fields) and fields[i] != "":
        if fields[i] not in paths:
            paths.append(fields[i])
        i += 1
    kinds: dict[str, list[str]] = {p: [] for p in paths}
    i += 1
    while i < len(fields) and fields[i].isdigit():
        count = int(fields[i])
        named = fields[i + 1 : i + 1 + count]
        kind = fields[i + 1 + count] if i + 1 + count < len(fields) else ""
        i += count + 3
        if not kind.startswith("CONFLICT"):
            continue
        label = kind.removeprefix("CONFLICT").strip(" ()")
        for path in named:
            if path in kinds and label not in kinds[path]:
                kinds[path].append(label)
    return tree, [ConflictFile(p, kinds.get(p, [])) for p in paths]


def first_conflict(text: str, max_lines: int = PREVIEW_LINES) -> str | None:
    lines = text.splitlines()
    start = next((n for n, ln in enumerate(lines) if ln.startswith("<<<<<<<")), None)
    if start is None:
        return None
    end = next(
        (n for n in range(start, len(lines)) if lines[n].startswith(">>>>>>>")), len(lines) - 1
    )
    block = lines[start : end + 1]
    if len(block) > max_lines:
        block = [*block[: max_lines - 2], f"… {len(block) - max_lines + 1} more lines", block[-1]]
    return "\n".join(line[:200] for line in block)


class ScratchRepos:
    """Bare blobless mirrors, one per repository, each used under its own lock."""

    def __init__(self, git: GitRunner, credentials: GitCredentials, root: Path) -> None:
        self.git = git
        self.credentials = credentials
        self.root = root
        self._locks: dict[str, asyncio.Lock] = {}

    def path(self, full_name: str) -> Path:
        owner, name = validate_full_name(full_name).lower().split("/")
        return self.root / f"{owner}__{name}.git"

    def lock(self, full_name: str) -> asyncio.Lock:
        key = full_name.lower()
        if key not in self._locks:
            self._locks[key] = asyncio.Lock()
        return self._locks[key]

    async def _auth(self, full_name: str) -> dict[str, str | None]:
        url = check_clone_url(self.credentials.clone_url(full_name))
        return {"auth_header": await self.credentials.auth_header(), "url": url}

    async def _git(self, full_name: str, args: list[str], *, cwd: Path | None = None) -> GitResult:
        auth = await self._auth(full_name)
        return await self.git(args, cwd=cwd or self.path(full_name), **auth)

    async def _ok(
        self, full_name: str, args: list[str], action: str, *, cwd: Path | None = None
    ) -> str:
        res = await self._git(full_name, args, cwd=cwd)
        if res.rc != 0:
            raise git_error(res, action, network=args[0] in ("fetch", "push"))
        return res.stdout

    async def _ensure(self, full_name: str) -> Path:
        repo = self.path(full_name)
        if (repo / "HEAD").is_file():
            return repo
        self.root.mkdir(parents=True, exist_ok=True, mode=0o700)
        tmp = self.root / f".init-{secrets.token_hex(4)}"
        url = check_clone_url(self.credentials.clone_url(full_name))
        try:
            await self.git.ok(["init", "--quiet", "--bare", str(tmp)], cwd=self.root, action="init")
            for key, value in (
                ("remote.origin.url", url),
                ("remote.origin.promisor", "true"),
                ("remote.origin.partialclonefilter", "blob:none"),
                ("extensions.partialClone", "origin"),
                ("core.repositoryformatversion", "1"),
            ):
                await self.git.ok(["config", key, value], cwd=tmp, action="config")
            tmp.rename(repo)
        finally:
            if tmp.exists():
                shutil.rmtree(tmp, ignore_errors=True)
        return repo

    async def fetch(self, full_name: str, refs: list[str]) -> dict[str, str]:
        """Fetch remote refs (refs/heads/x, refs/pull/N/head); returns ref -> commit SHA."""
        for ref in refs:
            require_remote_ref(ref)
        await self._ensure(full_name)
        spec = [f"+{ref}:{_mirror(ref)}" for ref in refs]
        args = ["fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--filter=blob:none"]
        await self._ok(full_name, [*args, "origin", *spec], "fetch")
        shas = {}
        for ref in refs:
            out = await self._ok(full_name, ["rev-parse", "--verify", _mirror(ref)], "rev-parse")
            shas[ref] = out.strip()
        return shas

    async def trial_merge(self, full_name: str, base_ref: str, head_ref: str) -> MergeTrial:
        """Merge head into base without a work tree; name the conflicting files."""
        async with self.lock(full_name):
            shas = await self.fetch(full_name, [base_ref, head_ref])
            base, head = shas[base_ref], shas[head_ref]
            res = await self._git(
                full_name,
                ["merge-tree", "--write-tree", "-z", "--name-only", "--messages", base, head],
            )
            if res.rc not in (0, 1):
                raise git_error(res, "trial merge", network=False)
            tree, files = parse_merge_tree_z(res.stdout)
            for item in files[:MAX_PREVIEWS] if _SHA.match(tree) else []:
                spec = f"{tree}:{item.path}"
                size = await self._git(full_name, ["cat-file", "-s", spec])
                if size.rc != 0 or int(size.stdout.strip() or 0) > MAX_PREVIEW_BLOB:
                    continue
                blob = await self._git(full_name, ["cat-file", "-p", spec])
                if blob.rc == 0:
                    item.preview = first_conflict(blob.stdout)
            return MergeTrial(base, head, res.rc == 0, files[:MAX_CONFLICT_FILES])

    async def count_commits(self, full_name: str, upstream: str, head: str) -> int:
        out = await self._ok(full_name, ["rev-list", "--count", f"{upstream}..{head}"], "count")
        return int(out.strip() or 0)

    async def rebase_and_push(
        self,
        full_name: str,
        *,
        branch: str,
        onto_ref: str,
        upstream_ref: str,
        expected_sha: str,
        push: bool = True,
    ) -> RebaseOutcome:
        """Replay branch's commits after upstream onto onto_ref, in a throwaway work tree,
        then push with a lease on expected_sha. On conflict nothing is pushed and the
        conflicting files are returned."""
        validate_ref(branch)
        branch_ref = f"refs/heads/{branch}"
        async with self.lock(full_name):
            wanted = list(dict.fromkeys([branch_ref, onto_ref, upstream_ref]))
            shas = await self.fetch(full_name, wanted)
            old = shas[branch_ref]
            _require_planned_head(branch, old, expected_sha)
            onto, upstream = shas[onto_ref], shas[upstream_ref]
            outcome = RebaseOutcome(status="rebased", old_sha=old)
            outcome.replayed = await self.count_commits(full_name, upstream, old)
            await self._rebase_in_tree(full_name, outcome, onto, upstream)
            if outcome.status == "conflict":
                return outcome
            if outcome.new_sha == old:
                outcome.status = "up_to_date"
                return outcome
            if push:
                await self._push_with_lease(full_name, branch, outcome)
            return outcome

    async def _rebase_in_tree(
        self, full_name: str, outcome: RebaseOutcome, onto: str, upstream: str
    ) -> None:
        """Rebase outcome.old_sha in a throwaway work tree, always removed afterwards; sets
        the new head, or the conflict."""
        tree_dir = self.root / f".rebase-{secrets.token_hex(6)}"
        repo = self.path(full_name)
        try:
            await self._ok(
                full_name,
                ["worktree", "add", "--quiet", "--detach", str(tree_dir), outcome.old_sha],
                "worktree",
            )
            res = await self._git(
                full_name, ["rebase", "--quiet", "--onto", onto, upstream], cwd=tree_dir
            )
            if res.rc != 0:
                await self._record_conflict(full_name, tree_dir, res, outcome)
                return
            new = await self._ok(full_name, ["rev-parse", "HEAD"], "rev-parse", cwd=tree_dir)
            outcome.new_sha = new.strip()
        finally:
            await self._git(full_name, ["worktree", "remove", "--force", str(tree_dir)])
            if tree_dir.exists():
                shutil.rmtree(tree_dir, ignore_errors=True)
            await self._git(full_name, ["worktree", "prune"], cwd=repo)

    async def _record_conflict(
        self, full_name: str, tree_dir: Path, res: GitResult, outcome: RebaseOutcome
    ) -> None:
        """Name the unmerged files and the commit that stopped, then abort the rebase. A
        failure with no unmerged file was not a conflict: it is raised."""
        unmerged = await self._git(
            full_name, ["diff", "--name-only", "--diff-filter=U"], cwd=tree_dir
        )
        outcome.status = "conflict"
        outcome.conflicts = [p for p in unmerged.stdout.splitlines() if p][:100]
        stopped = await self._git(
            full_name, ["rev-parse", "--verify", "--quiet", "REBASE_HEAD"], cwd=tree_dir
        )
        outcome.failed_commit = stopped.stdout.strip() or None
        await self._git(full_name, ["rebase", "--abort"], cwd=tree_dir)
        if not outcome.conflicts:
            raise git_error(res, "rebase", network=False)

    async def _push_with_lease(self, full_name: str, branch: str, outcome: RebaseOutcome) -> None:
        """Push the rebased head only if the branch is still where it was read."""
        branch_ref = f"refs/heads/{branch}"
        assert outcome.new_sha is not None
        res = await self._git(
            full_name,
            [
                "push", "--quiet", "--porcelain",
                f"--force-with-lease={branch_ref}:{outcome.old_sha}",
                "origin", f"{outcome.new_sha}:{branch_ref}",
            ],
        )  # fmt: skip
        if res.rc != 0:
            text = (res.stdout + res.stderr).lower()
            if "stale info" in text or "rejected" in text:
                raise GitHubMCPError(
                    ErrorCode.CONFLICT,
                    f"{branch} moved while rebasing; the lease refused the push.",
                    hint="Call manage_stacked_prs again.",
                )
            raise git_error(res, "push", network=True)
        outcome.pushed = True
        await self._git(full_name, ["update-ref", _mirror(branch_ref), outcome.new_sha])


def _require_planned_head(branch: str, old: str, expected_sha: str) -> None:
    if old != expected_sha:
        raise GitHubMCPError(
            ErrorCode.CONFLICT,
            f"{branch} moved to {old[:12]} (expected {expected_sha[:12]}); nothing done.",
            hint="Call manage_stacked_prs again to plan from the new head.",
        )


_SCRATCH: weakref.WeakKeyDictionary[object, ScratchRepos] = weakref.WeakKeyDictionary()


def scratch_repos(
    owner: object, git: GitRunner, credentials: GitCredentials, root: Path
) -> ScratchRepos:
    """The ScratchRepos of a workspace manager (created once, kept while it lives)."""
    found = _SCRATCH.get(owner)
    if found is None:
        found = _SCRATCH[owner] = ScratchRepos(git, credentials, root)
    return found
