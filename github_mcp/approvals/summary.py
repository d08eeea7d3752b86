"""What a gated write will do, in the words the approval page and the approval form show:
repository, branch, tool, the remote state the write is bound to (binding.py), every file
with +/− line counts and its diff (section edits included), titles, messages and bodies in
full, and warnings about look-alike names. Nothing is cut; characters that hide or reorder
text are shown as `⟨U+202E⟩` where it is rendered (page.py, `text`)."""

from __future__ import annotations

import difflib
import json
from collections import Counter
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any, Literal

from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.kernel.hidden_text import make_visible
from github_mcp.kernel.refnames import lookalike_warning, skeleton
from github_mcp.services.shared.approved_state import (
    RemoteState,  # a runtime hint: store.py reads it
)
from github_mcp.services.shared.patches import unified_diff

ChangeKind = Literal["added", "modified", "deleted", "renamed", "patched", "unknown"]
MAX_FILES_READ = 30  # current contents read to count lines; the rest are listed only
EXACT_DIFF_LINES = 2000  # above this, lines are counted as multisets (linear time)
MAX_DIFF_LINES = 5000  # a file longer than this is shown with counts, without its diff

# (full_name, paths, branch) -> each path's current text, or None where it does not exist
ReadCurrent = Callable[[str, list[str], str], Awaitable[dict[str, str | None]]]
# (full_name, branch) -> every path on the branch
ListPaths = Callable[[str, str], Awaitable[list[str]]]


@dataclass(frozen=True)
class FileChange:
    path: str
    change: ChangeKind
    added: int | None = None
    removed: int | None = None
    note: str = ""
    diff: str | None = None  # the unified diff the page renders

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
    state: RemoteState | None = None  # the remote facts this approval is bound to
    warnings: tuple[str, ...] = ()

    def text(self) -> str:
        """Plain text for a form prompt: what the page shows, in full, hidden characters
        made visible (the diffs are on the page only)."""
        where = f"{self.repo or '(no repository)'}"
        if self.branch:
            where += f" @ {self.branch}"
        lines = [f"{self.tool} on {where} ({REASONS.get(self.reason, self.reason)})"]
        lines += [f"WARNING: {w}" for w in self.warnings]
        if self.title:
            lines.append(f"title: {self.title}")
        lines += [f"{label}: {value}" for label, value in self.details]
        lines += [f"  {f.line()}" for f in self.files]
        lines += state_lines(self.state)
        return make_visible("\n".join(lines))


def state_lines(state: RemoteState | None) -> list[str]:
    """The bound facts, the commits (messages in full) and the files at that head."""
    if state is None:
        return []
    lines = [f"approving exactly: {name} {value}" for name, value in state.facts]
    lines += [f"{label}: {text}" for label, text in state.texts]
    if state.since is not None:
        lines.append(f"{state.commits_total} commit(s) since {state.since}:")
    lines += [f"  {c.sha} {c.message.strip()}" for c in state.commits]
    lines += [f"  {f.status} {f.path} +{f.additions} −{f.deletions}" for f in state.files]
    return lines


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
    files: list[list[str]] = []
    for line in patch.splitlines():
        if line.startswith("--- "):
            files.append([])
        if files:
            files[-1].append(line)
    changes = (_file_change(lines) for lines in files)
    return tuple(change for change in changes if change is not None)


def _file_change(lines: list[str]) -> FileChange | None:
    """One file's change: its `---` line, then its `+++` line and hunks."""
    old_path = _diff_path(lines[0][4:])
    path: str | None = None
    kind: ChangeKind = "patched"
    added = removed = 0
    for line in lines[1:]:
        if line.startswith("+++ ") and path is None:
            new_path = _diff_path(line[4:])
            path = new_path or old_path or "?"
            kind = "added" if old_path is None else "deleted" if new_path is None else kind
        elif path is not None and line.startswith("+"):
            added += 1
        elif path is not None and line.startswith("-"):
            removed += 1
    if path is None:
        return None
    return FileChange(path, kind, added, removed, diff="\n".join(lines))


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
    state: RemoteState | None = None,
    list_paths: ListPaths | None = None,
) -> WriteSummary:
    """The summary of one gated write. `read_current` reads files at the branch so
    commit tools show real +/− counts and diffs; without it (or when a read fails) files
    are listed without counts. `state` is the remote state the write is bound to."""
    args = plain(args)
    title, title_arg = _title(args)
    files: tuple[FileChange, ...] = ()
    if tool == "apply_patch_and_commit" and isinstance(args.get("patch"), str):
        files = patch_changes(args["patch"])
    else:
        proposed = _proposed_files(tool, args)
        if proposed:
            sections = args.get("sections")
            sections = sections if isinstance(sections, list) else []
            files = await _with_counts(proposed, repo, branch, read_current, sections)
    skip = {"patch", "new_content", "sections", "full_name", title_arg}
    skip |= {"branch"} if branch else set()
    skip |= {"files"} if files or tool in _COMMITS else set()  # shown as files and diffs
    details = tuple(
        row for name, value in sorted(args.items())
        if name not in skip and value not in (None, "", [], {})
        for row in _rows(name, value)
    )  # fmt: skip
    if tool == "update_file_sections_and_commit" and isinstance(args.get("sections"), list):
        details += (("sections replaced", str(len(args["sections"]))),)
    names = [f.path for f in files] + [f.path for f in (state.files if state else ())]
    names += [str(args["new_path"])] if isinstance(args.get("new_path"), str) else []
    warnings = await _warnings(names, repo, branch, list_paths)
    return WriteSummary(tool, repo, branch, reason, title, details, files, state, warnings)


async def _warnings(
    names: list[str], repo: str | None, branch: str | None, list_paths: ListPaths | None
) -> tuple[str, ...]:
    """Look-alike names: mixed scripts, read as another ASCII name, or looking like a
    path that already exists on the branch (read only when a name is not plain ASCII)."""
    found = [w for w in map(lookalike_warning, names) if w]
    odd = [n for n in names if not n.isascii()]
    if odd and list_paths and repo and branch:
        try:
            existing = {skeleton(p): p for p in await list_paths(repo, branch)}
        except GitHubMCPError:
            existing = {}
        for name in odd:
            twin = existing.get(skeleton(name))
            if twin is not None and twin != name:
                found.append(f"{name!r} looks like the existing path {twin!r}")
    return tuple(dict.fromkeys(found))


def _title(args: dict[str, Any]) -> tuple[str | None, str]:
    """The write's title in full (a PR or issue title, a commit title or message)."""
    for name in ("title", "commit_title", "message"):
        value = args.get(name)
        if isinstance(value, str) and value.strip():
            label = {"message": "commit message", "commit_title": "commit title"}.get(name)
            return (f"{label}: {value}" if label else value), name
    return None, ""


# path -> (kind, new content or None for a deletion, note); "sections": the new content
# comes from the file at the branch with the call's sections applied
Proposed = dict[str, tuple[ChangeKind | Literal["sections"], str | None, str]]


def _proposed_files(tool: str, args: dict[str, Any]) -> Proposed:
    if tool in ("commit_files", "update_files_and_open_pr"):
        return _proposed_commit(args.get("files") or [])
    if tool == "commit_workspace":
        return {
            str(path): ("unknown", None, "from the workspace") for path in args.get("paths") or []
        }
    path = args.get("path")
    if not isinstance(path, str):
        return {}
    one: dict[str, tuple[ChangeKind | Literal["sections"], str | None, str]] = {
        "apply_text_update_and_commit": ("modified", str(args.get("new_content") or ""), ""),
        "delete_file": ("deleted", None, ""),
        "move_file": ("renamed", None, f"to {args.get('new_path')}"),
        "update_file_sections_and_commit": ("sections", None, "sections replaced"),
    }
    return {path: one[tool]} if tool in one else {}


def _proposed_commit(files: list[Any]) -> Proposed:
    proposed: Proposed = {}
    for item in files:
        if not isinstance(item, dict) or not isinstance(item.get("path"), str):
            continue
        if item.get("delete"):
            proposed[item["path"]] = ("deleted", None, "")
        else:
            proposed[item["path"]] = ("modified", str(item.get("content") or ""), "")
    return proposed


async def _with_counts(
    proposed: Proposed,
    repo: str | None,
    branch: str | None,
    read_current: ReadCurrent | None,
    sections: list[Any],
) -> tuple[FileChange, ...]:
    countable = [
        p for p, (kind, _, _) in proposed.items() if kind in ("modified", "deleted", "sections")
    ]
    current: dict[str, str | None] = {}
    if read_current and repo and branch and countable:
        try:
            current = await read_current(repo, countable[:MAX_FILES_READ], branch)
        except GitHubMCPError:
            current = {}
    changes = []
    for path, (kind, content, note) in proposed.items():
        shown: ChangeKind = "modified" if kind == "sections" else kind
        if path not in current or shown not in ("modified", "deleted"):
            changes.append(FileChange(path, shown, note=note))
            continue
        old = current[path]
        if kind == "sections":
            content = _with_sections(old, sections)
        if shown == "modified" and content is None:
            changes.append(FileChange(path, shown, note=note or "could not be applied"))
            continue
        if old is None and shown == "modified":
            shown = "added"
        added, removed = count_lines(old, content)
        changes.append(FileChange(path, shown, added, removed, note, _diff(old, content, path)))
    return tuple(changes)


def _with_sections(old: str | None, sections: list[Any]) -> str | None:
    """What a section edit makes of the file (None when it cannot apply)."""
    if old is None:
        return None
    # here, not at import: the edit engine pulls in most of services/, which a server
    # starting up (the Runtime imports this module) need not wait for
    from github_mcp.services.repos.edits import apply_sections

    try:
        return apply_sections(old, [SimpleNamespace(**s) for s in sections])
    except (GitHubMCPError, TypeError):
        return None


def _diff(old: str | None, new: str | None, path: str) -> str | None:
    lines = max(len((old or "").splitlines()), len((new or "").splitlines()))
    if lines > MAX_DIFF_LINES:
        return None  # the counts stand; a diff this long is reviewed in a pull request
    return unified_diff(old, new, path)


# the tools whose `files` are commits, shown file by file with their diffs
_COMMITS = frozenset({"commit_files", "update_files_and_open_pr", "commit_workspace"})


def _rows(name: str, value: Any) -> list[tuple[str, str]]:
    """An argument as the page's rows: a mapping of names to texts (a gist's files, an
    issue's field values) one row per entry, a list of records (a review's comments) one
    row per field of each, each text in full with its line breaks; anything else one row."""
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        return [
            (f"{name}: {key}", "(removed)" if text is None else _full(text))
            for key, text in sorted(value.items())
        ]
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        return [
            (f"{name} {n}: {key}", _full(text))
            for n, record in enumerate(value, 1)
            for key, text in record.items()
            if text not in (None, "", [], {})
        ]
    return [(name, _full(value))]


def _full(value: Any) -> str:
    """An argument's value in full (never cut): text as it is, anything else as JSON (a
    date as its ISO form)."""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
