"""A job's log as get_job_logs answers it: the excerpt asked for (failed steps, a grep, the
last lines, within a byte budget) and a note saying what was cut."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.services.actions._joblogs import DEFAULT_MAX_BYTES, LogExcerpt, select
from github_mcp.services.actions._runs import fetch_job_log, get_job


class JobLogs(BaseModel):
    job_id: int
    job: str | None = None
    status: str | None = None
    conclusion: str | None = None
    log: str
    lines_shown: int
    total_lines: int
    omitted_lines: int
    truncated: bool
    bytes: int
    cut: str | None = None


@dataclass(frozen=True)
class Narrowing:
    """What of a job's log to show."""

    failed_steps_only: bool = False
    tail_lines: int | None = None
    grep: str | None = None
    max_bytes: int = DEFAULT_MAX_BYTES


async def job_logs(
    github: GitHubClient, full_name: str, job_id: int, narrowing: Narrowing
) -> JobLogs:
    """The job, its state, and the part of its log `narrowing` asks for."""
    job = await get_job(github, full_name, job_id)
    log = await fetch_job_log(github, full_name, job_id)
    excerpt = select(
        log.text, failed_steps_only=narrowing.failed_steps_only,
        tail_lines=narrowing.tail_lines, grep=narrowing.grep, max_bytes=narrowing.max_bytes,
    )  # fmt: skip
    return JobLogs(
        job_id=job_id,
        job=job.get("name"),
        status=job.get("status") if job.get("status") != "completed" else None,
        conclusion=job.get("conclusion"),
        log=excerpt.text,
        lines_shown=len(excerpt.lines),
        total_lines=excerpt.total_lines,
        omitted_lines=excerpt.omitted_lines,
        truncated=excerpt.truncated or log.head_cut,
        bytes=excerpt.bytes,
        cut=_cut_note(excerpt, narrowing, log.head_cut),
    )


def _cut_note(excerpt: LogExcerpt, narrowing: Narrowing, head_cut: bool) -> str | None:
    parts = []
    if head_cut:
        parts.append("the log was longer than the download cap: its beginning is not included")
    if narrowing.failed_steps_only:
        parts.append("only failed steps are shown" + ("" if excerpt.lines else " (none failed)"))
    if narrowing.grep is not None:
        parts.append(f"only lines matching {narrowing.grep!r} (±2 lines)")
    if narrowing.tail_lines is not None:
        parts.append(f"only the last {narrowing.tail_lines} selected lines")
    if excerpt.truncated:
        parts.append(
            "the byte budget cut lines, marked '[… N lines omitted …]': raise max_bytes or "
            "narrow with grep/tail_lines"
        )
    if not parts and excerpt.omitted_lines:
        parts.append("runner set-up noise was dropped")
    return "; ".join(parts) or None
