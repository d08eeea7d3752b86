"""What a gated write will do, in the words the approval page and the approval form show:
repository, branch, tool, and a diff summary (files with +/− line counts for commits,
the title for pull requests and issues, the arguments for the rest)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..errors import GitHubMCPError

ChangeKind = Literal["added", "modified", "deleted", "renamed", "patched", "unknown"]
MAX_FILES_READ = 30  # current contents read to count lines; the rest are listed only
EXACT_DIFF_LINES = 2000  # above this, lines are counted as multisets (linear time)
ARG_VALUE_CHARS = 120

# (full_name, paths, branch) -> each path's current text, or None where it does not exist
ReadCurrent = Callable[[str, list[str], str], Awaitable[dict[str, str | None]]]


@dataclass(frozen=True)
class FileChange:
    path: str
    change: ChangeKind
    added: int | None = None
    removed: int | None = None
    note: str = ""

    def line(self) -> str:
        counts = ""
        if self.added is not None or self.removed is not None:
            counts = f" +{self.added or 0} −{self.removed or 0}"
        note = f" ({self.note})" if self.note else ""
        return f"{self.change} {self.path}{counts}{note}"


@dataclass(frozen=True)
class WriteSummary:
    tool: str
    repo: str | None
    branch: str | None
    reason: str  # why it needs approval (default_branch, protected_glob, unscoped_write…)
    title: str | None = None
    details: tuple[tuple[str, str], ...] = ()
    files: tuple[FileChange, ...] = ()

    def text(self) -> str:
        """Plain text for a form prompt: every line the page shows."""
        where = f"{self.repo or '(no repository)'}"
        if self.branch:
            where += f" @ {self.branch}"
        lines = [f"{self.tool} on {where} ({REASONS.get(self.reason, self.reason)})"]
        if self.title:
            lines.append(f"title: {self.title}")
        lines += [f"{label}: {value}" for label, value in self.details]
        lines += [f"  {f.line()}" for f in self.files]
        return "\n".join(lines)


REASONS = {
    "default_branch": "the default branch",
    "controller_branch": "the controller branch",
    "protected_glob": "a protected branch",
    "unscoped_write": "a write not scoped to a branch",
}


def plain(value: Any) -> Any:
    """Arguments as JSON data: validated models (file entries, sections) become dicts."""
    if hasattr(value, "model_dump"):
        return plain(value.model_dump(mode="json"))
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [plain(v) for v in value]
    return value


def count_lines(old: str | None, new: str | None) -> tuple[int, int]:
    """Lines added and removed going from `old` to `new`."""
    before = (old or "").splitlines()
    after = (new or "").splitlines()
    if len(before) <= EXACT_DIFF_LINES and len(after) <= EXACT_DIFF_LINES:
        added = removed = 0
        matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
        for tag, i1, i2, j1, j2 in matcher.get_opcodes():
            if tag in ("replace", "delete"):
                removed += i2 - i1
            if tag in ("replace", "insert"):
                added += j2 - j1
        return added, removed
    old_lines, new_lines = Counter(before), Counter(after)
    return sum((new_lines - old_lines).values()), sum((old_lines - new_lines).values())


def patch_changes(patch: str) -> tuple[FileChange, ...]:
    """Files and +/− counts of a unified diff, from its own lines."""
    changes: list[FileChange] = []
    path: str | None = None
    kind: ChangeKind = "patched"
    added = removed = 0
    old_path: str | None = None

    def flush() -> None:
        if path is not None:
            changes.append(FileChange(path, kind, added, removed))

    for line in patch.splitlines():
        if line.startswith("--- "):
            flush()
            path, kind, added, removed = None, "patched", 0, 0
            old_path = _diff_path(line[4:])
        elif line.startswith("+++ ") and path is None:
            new_path = _diff_path(line[4:])
            path = new_path or old_path or "?"
            if old_path is None:
                kind = "added"
            elif new_path is None:
                kind = "deleted"
        elif path is not None and line.startswith("+"):
            added += 1
        elif path is not None and line.startswith("-"):
            removed += 1
    flush()
    return tuple(changes)


def _diff_path(header: str) -> str | None:
    name = header.split("\t", 1)[0].strip()
    if name == "/dev/null":
        return None
    return name[2:] if name[:2] in ("a/", "b/") else name


async def summarize(
    tool: str,
    args: dict[str, Any],
    repo: str | None,
    branch: str | None,
    reason: str,
    read_current: ReadCurrent | None,
) -> WriteSummary:
    """The summary of one gated write. `read_current` reads files at the branch so
    commit tools show real +/− counts; without it (or when a read fails) files are
    listed without counts."""
    args = plain(args)
    title = _title(tool, args)
    files: tuple[FileChange, ...] = ()
    if tool == "apply_patch_and_commit" and isinstance(args.get("patch"), str):
        files = patch_changes(args["patch"])
    else:
        proposed = _proposed_files(tool, args)
        if proposed:
            files = await _with_counts(proposed, repo, branch, read_current)
    skip = {"files", "patch", "new_content", "sections", "title", "message", "full_name"}
    skip |= {"branch"} if branch else set()
    details = tuple(
        (name, _short(value)) for name, value in sorted(args.items())
        if name not in skip and value not in (None, "", [], {})
    )  # fmt: skip
    if tool == "update_file_sections_and_commit" and isinstance(args.get("sections"), list):
        details += (("sections replaced", str(len(args["sections"]))),)
    return WriteSummary(tool, repo, branch, reason, title, details, files)


def _title(tool: str, args: dict[str, Any]) -> str | None:
    for name in ("title", "commit_title", "message", "body"):
        value = args.get(name)
        if isinstance(value, str) and value.strip():
            first = value.strip().splitlines()[0]
            label = {"message": "commit", "body": "text"}.get(name)
            return f"{label}: {_short(first)}" if label else _short(first)
    return None


# path -> (kind, new content or None for a deletion, note)
Proposed = dict[str, tuple[ChangeKind, str | None, str]]


def _proposed_files(tool: str, args: dict[str, Any]) -> Proposed:
    proposed: Proposed = {}
    if tool in ("commit_files", "update_files_and_open_pr"):
        for item in args.get("files") or []:
            if not isinstance(item, dict) or not isinstance(item.get("path"), str):
                continue
            if item.get("delete"):
                proposed[item["path"]] = ("deleted", None, "")
            else:
                proposed[item["path"]] = ("modified", str(item.get("content") or ""), "")
    elif tool == "apply_text_update_and_commit" and isinstance(args.get("path"), str):
        proposed[args["path"]] = ("modified", str(args.get("new_content") or ""), "")
    elif tool == "delete_file" and isinstance(args.get("path"), str):
        proposed[args["path"]] = ("deleted", None, "")
    elif tool == "move_file" and isinstance(args.get("path"), str):
        proposed[args["path"]] = ("renamed", None, f"to {args.get('new_path')}")
    elif tool == "update_file_sections_and_commit" and isinstance(args.get("path"), str):
        proposed[args["path"]] = ("modified", None, "sections replaced")
    elif tool == "commit_workspace":
        for path in args.get("paths") or []:
            proposed[str(path)] = ("unknown", None, "from the workspace")
    return proposed


async def _with_counts(
    proposed: Proposed, repo: str | None, branch: str | None, read_current: ReadCurrent | None
) -> tuple[FileChange, ...]:
    countable = [p for p, (kind, _, _) in proposed.items() if kind in ("modified", "deleted")]
    current: dict[str, str | None] = {}
    if read_current and repo and branch and countable:
        try:
            current = await read_current(repo, countable[:MAX_FILES_READ], branch)
        except GitHubMCPError:
            current = {}
    changes = []
    for path, (kind, content, note) in proposed.items():
        if path not in current or kind not in ("modified", "deleted"):
            changes.append(FileChange(path, kind, note=note))
            continue
        old = current[path]
        if kind == "modified" and content is None:
            changes.append(FileChange(path, kind, note=note))
            continue
        if old is None and kind == "modified":
            kind = "added"
        added, removed = count_lines(old, content)
        changes.append(FileChange(path, kind, added, removed, note))
    return tuple(changes)


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else repr(value)
    text = " ".join(text.split())
    if len(text) > ARG_VALUE_CHARS:
        return text[: ARG_VALUE_CHARS - 1] + f"… ({len(text)} characters)"
    return text
