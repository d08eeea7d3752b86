"""What the CI services return: runs, jobs and check counts as typed models.

The tools return these as they are, so their output schemas are generated from the very
types the services fill in. A field left None is left out of the tool's answer.
"""

from __future__ import annotations

from pydantic import BaseModel, Field


class RunSummary(BaseModel):
    id: int
    workflow: str | None = None
    title: str | None = None
    number: int | None = None
    attempt: int | None = None
    event: str | None = None
    status: str | None = None
    conclusion: str | None = None
    branch: str | None = None
    head_sha: str | None = None
    created_at: str | None = None


class StepRef(BaseModel):
    number: int | None = None
    name: str | None = None
    conclusion: str | None = None


class JobSummary(BaseModel):
    id: int
    name: str | None = None
    status: str | None = None
    conclusion: str | None = None
    duration_s: int | None = None
    current_step: str | None = None
    failed_steps: list[StepRef] | None = None


class CheckCountsOut(BaseModel):
    total: int
    passed: int
    failed: int
    pending: int


class OpenPull(BaseModel):
    number: int
    title: str
    draft: bool | None = None


class FailedJob(BaseModel):
    job: str
    job_id: int
    conclusion: str | None = None
    step: str | None = None
    tests: int
    error: str | None = None
    note: str | None = Field(None, description="What the log parser's size budget left unread.")


class Dispatched(BaseModel):
    """A workflow_dispatch's run, when it could be told: from GitHub's answer or, on servers
    that do not return it, the newest dispatch run on the branch."""

    run_id: int | None = None
    run_id_source: str | None = None
