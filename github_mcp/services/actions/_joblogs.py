"""GitHub Actions job logs: cleaning, steps, and bounded excerpts.

A job log (`GET /repos/{owner}/{repo}/actions/jobs/{id}/logs`) is plain text,
UTF-8 with a BOM, one line per output line, each prefixed with an ISO timestamp
and a space (`2024-01-01T12:00:00.1234567Z `). The runner marks structure with
`##[group]Title` / `##[endgroup]` and annotations with `##[error]`,
`##[warning]`, `##[notice]`. A `run:` step starts with `##[group]Run <first line
of the script>`, followed by the script, `shell:` and `env:`; an action step
with `##[group]Run owner/action@ref` and its `with:` inputs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from github_mcp.kernel.errors import invalid_input
from github_mcp.services.actions.runners.base import GH_TIMESTAMP_RE, strip_ansi
from github_mcp.services.actions.runners.linear import (
    LinearPattern,
    compile_linear,
    compile_user_pattern,
)

DEFAULT_MAX_BYTES = 16_000
MIN_MAX_BYTES = 256
MAX_LINE_CHARS = 2_000
GREP_CONTEXT = 2
MAX_PATTERN_CHARS = 256
MAX_GREP_LINE = 512

_COMMAND = compile_linear(
    r"^##\[(group|endgroup|error|warning|notice|debug|command|section)\](.*)$"
)
# Workflow commands as a step printed them, in logs the runner did not rewrite.
_WORKFLOW_COMMAND = compile_linear(
    r"^::(group|endgroup|error|warning|notice|debug)(?: [^:]*)?::(.*)$"
)
_LABELS = {"error": "error", "warning": "warning", "notice": "notice", "debug": "debug"}
SETUP_STEP = "Set up job"
PLAIN_STEP = "log"


@dataclass
class Step:
    name: str
    lines: list[str] = field(default_factory=list)
    failed: bool = False


@dataclass
class LogExcerpt:
    """Selected lines. `omitted_lines` counts log lines not shown, for any reason;
    `truncated` says the byte budget (or the per-line cap) cut something."""

    lines: list[str]
    truncated: bool
    omitted_lines: int
    total_lines: int
    bytes: int

    @property
    def text(self) -> str:
        return "\n".join(self.lines)


def _raw_lines(text: str | bytes) -> list[str]:
    if isinstance(text, bytes | bytearray):
        text = bytes(text).decode("utf-8", "replace")
    out = []
    for raw in (text or "").lstrip("\ufeff").split("\n"):
        if "\r" in raw:
            parts = [p for p in raw.split("\r") if p]
            raw = parts[-1] if parts else ""
        line = strip_ansi(raw)
        if line[:1].isdigit():
            line = GH_TIMESTAMP_RE.sub("", line, count=1)
        out.append(line.rstrip())
    if out and out[-1] == "":
        out.pop()
    return out


def _command(line: str) -> tuple[str, str] | None:
    match = _COMMAND.match(line) or _WORKFLOW_COMMAND.match(line)
    return (match.group(1), match.group(2)) if match else None


def _parse(text: str | bytes) -> list[Step]:
    raw = _raw_lines(text)
    parser = _StepParser(
        run_groups=any(ln.startswith(("##[group]Run ", "::group::Run ")) for ln in raw),
        first_name=SETUP_STEP if any(_command(ln) for ln in raw) else PLAIN_STEP,
    )
    for line in raw:
        parser.feed(line)
    return parser.steps


class _StepParser:
    """Splits a job log into steps, one line at a time."""

    def __init__(self, run_groups: bool, first_name: str) -> None:
        self.run_groups = run_groups  # `Run ...` groups mark the steps (else top-level groups)
        self.first_name = first_name
        self.steps: list[Step] = []
        self.current: Step | None = None
        self.in_header = self.in_env = False
        self.script_first = ""  # a step header echoes its script's first line: dropped
        self.depth = 0

    def start(self, name: str) -> Step:
        self.current = Step(name)
        self.steps.append(self.current)
        return self.current

    def feed(self, line: str) -> None:
        kind, rest = _command(line) or ("", "")
        if kind == "group":
            self.group(rest.strip())
        elif kind == "endgroup":
            self.depth = max(0, self.depth - 1)
            self.in_header = self.in_env = False
        elif line == "Post job cleanup.":
            self.start("Post job cleanup").lines.append("## Post job cleanup")
        elif self.current is not None or line:
            step = self.current or self.start(self.first_name)
            if not (self.in_header and self.header_noise(line)):
                step.lines.append(_shown(step, kind, rest, line))

    def group(self, title: str) -> None:
        boundary = title.startswith("Run ") if self.run_groups else self.depth == 0
        if boundary:
            self.start(title)
            self.in_header = True
            self.script_first = title[4:] if title.startswith("Run ") else ""
        step = self.current or self.start(self.first_name)
        step.lines.append(f"## {title}")
        self.depth += 1

    def header_noise(self, line: str) -> bool:
        """A `Run` header's `shell:` line, `env:` block and echoed first script line."""
        if line.startswith("shell: ") or (self.in_env and line.startswith("  ")):
            return True
        self.in_env = line == "env:"
        if self.in_env:
            return True
        if self.script_first and line == self.script_first:
            self.script_first = ""
            return True
        return False


def _shown(step: Step, kind: str, rest: str, line: str) -> str:
    if kind in _LABELS:
        step.failed = step.failed or kind == "error"
        return f"{_LABELS[kind]}: {rest}"
    if kind == "command":
        return f"$ {rest}"
    if kind == "section":
        return f"## {rest}"
    return line


def clean_log(text: str | bytes) -> list[str]:
    """The log as readable lines: no timestamps, ANSI, BOM or group markers.

    A group title stays as a `## Title` header line; `##[error]x` becomes
    `error: x` (likewise warning, notice, debug). In a step's `Run ...` header
    the echoed first script line, `shell:` and the `env:` block are dropped.
    """
    return [line for step in _parse(text) for line in step.lines]


def split_steps(text: str | bytes) -> list[Step]:
    """The job's steps, each starting at its `##[group]Run ...` header.

    Lines before the first step form "Set up job" ("log" when the text has no
    runner markers at all); `Post job cleanup.` starts a post step. A log
    without `Run` groups is split at top-level groups. A
    step is failed when it holds an `##[error]` line. Concatenating the steps'
    lines gives `clean_log(text)`.
    """
    return _parse(text)


# ------------------------------------------------------------------ grep


def compile_grep(pattern: str) -> LinearPattern:
    """Compile a caller's pattern on RE2: matching time is linear in the line,
    whatever the pattern, so nested or stacked repeats are harmless."""
    if not pattern:
        raise invalid_input(
            "grep pattern is empty",
            hint=(
                "Give a non-empty regular expression in grep, or leave grep out to get "
                "the whole log."
            ),
        )
    if len(pattern) > MAX_PATTERN_CHARS:
        raise invalid_input(
            f"grep pattern is longer than {MAX_PATTERN_CHARS} characters",
            hint=("Shorten the grep pattern; match a distinctive part of the line instead."),
        )
    try:
        return compile_user_pattern(pattern)
    except ValueError as exc:
        raise invalid_input(
            f"invalid grep pattern: {exc}",
            hint="RE2 syntax: no lookaround or backreferences, e.g. 'error|FAIL' or 'Timeout.*s'",
            pattern=pattern,
        ) from None


def _grep(lines: list[str], pattern: LinearPattern, context: int) -> list[int | None]:
    """Indices of matching lines with `context` lines around; None separates groups."""
    keep = [False] * len(lines)
    for i, line in enumerate(lines):
        if pattern.search(line[:MAX_GREP_LINE]):
            for j in range(max(0, i - context), min(len(lines), i + context + 1)):
                keep[j] = True
    out: list[int | None] = []
    for i, kept in enumerate(keep):
        if kept:
            if out and out[-1] is not None and out[-1] != i - 1:
                out.append(None)
            out.append(i)
    return out


# --------------------------------------------------------------- budget

# A selected line: its index in the cleaned log, or None for a marker we added.
_Item = tuple[int | None, str]


def _size(line: str) -> int:
    return len(line.encode("utf-8", "replace")) + 1


def _cap_line(item: _Item) -> tuple[_Item, bool]:
    index, line = item
    if len(line) <= MAX_LINE_CHARS:
        return item, False
    return (index, f"{line[:MAX_LINE_CHARS]}… [+{len(line) - MAX_LINE_CHARS} chars]"), True


def _fit(chunks: list[list[_Item]], budget: int) -> tuple[list[_Item], bool]:
    """Fit chunks (failed steps, or the whole selection) into `budget` bytes.

    Each chunk gets an equal share. An oversized chunk keeps its `## ` header
    and its tail, since the end of a failing step is where its error is.
    """
    out: list[_Item] = []
    truncated = False
    share = budget // max(1, len(chunks))
    for chunk in chunks:
        items = []
        for item in chunk:
            item, cut = _cap_line(item)
            truncated |= cut
            items.append(item)
        if sum(_size(text) for _, text in items) <= share:
            out.extend(items)
            continue
        truncated = True
        head = items[:1] if items and items[0][1].startswith("## ") else []
        room = share - sum(_size(text) for _, text in head) - 40  # the marker line
        tail: list[_Item] = []
        for item in reversed(items[len(head) :]):
            room -= _size(item[1])
            if room < 0:
                break
            tail.append(item)
        tail.reverse()
        cut_here = sum(1 for i, _ in items[len(head) : len(items) - len(tail)] if i is not None)
        out.extend([*head, (None, f"[… {cut_here} lines omitted …]"), *tail])
    size = sum(_size(text) for _, text in out)
    first = 0
    while first < len(out) and size > budget:  # shares rounded down, or a tiny budget
        size -= _size(out[first][1])
        first += 1
    return out[first:], truncated or first > 0


def _check_bounds(max_bytes: int, tail_lines: int | None) -> None:
    if max_bytes < MIN_MAX_BYTES:
        raise invalid_input(
            f"max_bytes must be at least {MIN_MAX_BYTES}",
            max_bytes=max_bytes,
            hint=(
                "Raise max_bytes to the minimum or more, or use tail_lines to keep only the end."
            ),
        )
    if tail_lines is not None and tail_lines < 0:
        raise invalid_input(
            "tail_lines must not be negative",
            tail_lines=tail_lines,
            hint="Give tail_lines as 0 or more, or leave it out for the whole log.",
        )


def _step_chunks(text: str | bytes, failed_steps_only: bool) -> tuple[list[list[_Item]], int]:
    """One chunk per failed step, or the whole log as one; and the log's line count."""
    chunks: list[list[_Item]] = []
    index = 0
    for step in _parse(text):
        items: list[_Item] = [(index + k, line) for k, line in enumerate(step.lines)]
        index += len(step.lines)
        if step.failed or not failed_steps_only:
            chunks.append(items)
    if not failed_steps_only:
        chunks = [[item for chunk in chunks for item in chunk]]
    return chunks, index


def _grep_chunks(chunks: list[list[_Item]], pattern: LinearPattern) -> list[list[_Item]]:
    """The matching lines with their context, `--` between groups, as one chunk."""
    flat = [item for chunk in chunks for item in chunk]
    picked = _grep([text for _, text in flat], pattern, GREP_CONTEXT)
    return [[flat[i] if i is not None else (None, "--") for i in picked]]


def _tail_chunks(chunks: list[list[_Item]], tail_lines: int) -> list[list[_Item]]:
    flat = [item for chunk in chunks for item in chunk]
    tail = flat[len(flat) - tail_lines :] if tail_lines else []
    while tail and tail[0][0] is None:  # no leading separator
        tail.pop(0)
    return [tail]


def select(
    text: str | bytes,
    *,
    failed_steps_only: bool = False,
    tail_lines: int | None = None,
    grep: str | None = None,
    max_bytes: int = DEFAULT_MAX_BYTES,
) -> LogExcerpt:
    """A bounded excerpt of a job log.

    Filters apply in order: failed steps only (none failed -> no lines), then
    lines matching `grep` with GREP_CONTEXT lines around (groups separated by
    `--`), then the last `tail_lines`. The result always fits in `max_bytes`
    (UTF-8, one newline per line); what did not fit is dropped from the start
    of each step and replaced by a `[… N lines omitted …]` marker.
    """
    _check_bounds(max_bytes, tail_lines)
    pattern = compile_grep(grep) if grep is not None else None
    chunks, total = _step_chunks(text, failed_steps_only)
    if pattern is not None:
        chunks = _grep_chunks(chunks, pattern)
    if tail_lines is not None:
        chunks = _tail_chunks(chunks, tail_lines)
    items, truncated = _fit(chunks, max_bytes)
    shown = sum(1 for i, _ in items if i is not None)
    lines = [text for _, text in items]
    return LogExcerpt(
        lines=lines,
        truncated=truncated,
        omitted_lines=total - shown,
        total_lines=total,
        bytes=sum(_size(line) for line in lines),
    )
