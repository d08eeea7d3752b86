"""Git work behind pull requests: trial merges, commit ranges, replays and diff positions.

Trial merges use `git merge-tree --write-tree`, so nothing needs a work tree. A replayed
commit (the rebase merge method) is a merge of the commit into the new base, with the
commit's parent as the merge base: git 2.39 has no `--merge-base`, so the base is forced
by merging from a throwaway commit whose only parent is that parent.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from sandbox_forge.git.objects import now_signature
from sandbox_forge.git.store import FORGE_SIGNATURE, SHA_RE, GitRepo, Signature

WEB_FLOW = ("GitHub", "noreply@github.com")
HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@dataclass(frozen=True)
class MergeResult:
    tree: str | None  # None: git refused (unrelated histories)
    conflicts: list[str]

    @property
    def clean(self) -> bool:
        return self.tree is not None and not self.conflicts


def merge_tree(git: GitRepo, ours: str, theirs: str) -> MergeResult:
    out = git.run(
        "merge-tree",
        "--write-tree",
        "-z",
        "--name-only",
        "--no-messages",
        ours,
        theirs,
        check=False,
    )
    parts = out.decode("utf-8", "surrogateescape").split("\0")
    tree = parts[0].strip()
    if not SHA_RE.match(tree):
        return MergeResult(None, [])
    conflicts: list[str] = []
    for name in parts[1:]:
        if name and name not in conflicts:
            conflicts.append(name)
    return MergeResult(tree, conflicts)


def web_flow_signature() -> Signature:
    return now_signature(*WEB_FLOW)


def commit_range(git: GitRepo, base: str, head: str) -> list[str]:
    """Commits on head that base lacks, oldest first (what a pull request shows)."""
    return git.rev_list([head, f"^{base}"], extra=["--reverse"])


def diff_base(git: GitRepo, base: str, head: str) -> str:
    """Where a pull request's diff starts: the merge base of its base and head."""
    return git.merge_base(base, head) or base


def replay(git: GitRepo, onto: str, commits: list[str], committer: Signature) -> str | None:
    """Re-create commits on top of onto, as a rebase does; None when one conflicts."""
    tip = onto
    for sha in commits:
        info = git.read_commit(sha)
        if len(info.parents) != 1:
            continue  # merge commits are dropped, as `git rebase` drops them
        tip_tree = git.read_commit(tip).tree
        scaffold = git.create_commit(tip_tree, [info.parents[0]], "replay", committer, committer)
        result = merge_tree(git, scaffold, sha)
        if not result.clean:
            return None
        if result.tree == tip_tree:
            continue  # already applied upstream: the commit would be empty
        assert result.tree is not None
        tip = git.create_commit(
            result.tree, [tip], info.message, info.author, committer, FORGE_SIGNATURE
        )
    return tip


# --- positions in a file's patch, for review comments ----------------------------------------


@dataclass(frozen=True)
class PatchLine:
    position: int  # 1 = the line after the first hunk header; headers count too
    kind: str  # " ", "+", "-"
    old: int | None
    new: int | None
    hunk_start: int  # index into lines of this line's hunk header


def patch_lines(patch: str) -> tuple[list[str], list[PatchLine]]:
    lines = patch.split("\n")
    found: list[PatchLine] = []
    old = new = 0
    header = 0
    for index, text in enumerate(lines):
        match = HUNK_HEADER.match(text)
        if match:
            old, new, header = int(match[1]), int(match[3]), index
            continue
        if text.startswith("\\"):
            continue
        kind = text[:1] or " "
        if kind == "+":
            found.append(PatchLine(index, "+", None, new, header))
            new += 1
        elif kind == "-":
            found.append(PatchLine(index, "-", old, None, header))
            old += 1
        else:
            found.append(PatchLine(index, " ", old, new, header))
            old += 1
            new += 1
    return lines, found


def locate(patch: str, line: int, side: str) -> tuple[int, str] | None:
    """(position, diff_hunk) of a line of a file's patch, or None when it is not there.

    diff_hunk runs from the line's hunk header to the line itself, as GitHub shows it."""
    lines, found = patch_lines(patch)
    for entry in found:
        number = entry.new if side == "RIGHT" else entry.old
        if number == line and (entry.kind != ("-" if side == "RIGHT" else "+")):
            hunk = "\n".join(lines[entry.hunk_start : entry.position + 1])
            return entry.position, hunk
    return None
