"""Everything a pull request overview shows, read at once: the PR, its changed files, its
reviews, and the check runs and commit statuses of its head commit."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from typing import Any

from github_mcp.github.client import GitHubClient
from github_mcp.services.pulls._service import (
    all_pull_files,
    check_runs,
    combined_status,
    get_pull,
    pull_reviews,
)


@dataclass
class PullOverview:
    pull: dict[str, Any]
    files: list[dict[str, Any]]
    reviews: list[dict[str, Any]]
    check_runs: list[dict[str, Any]]
    statuses: list[dict[str, Any]]


async def pull_overview(github: GitHubClient, full_name: str, number: int) -> PullOverview:
    pull = await get_pull(github, full_name, number)
    sha = pull["head"]["sha"]
    files, reviews, runs, status = await asyncio.gather(
        all_pull_files(github, full_name, number),
        pull_reviews(github, full_name, number),
        check_runs(github, full_name, sha),
        combined_status(github, full_name, sha),
    )
    return PullOverview(pull, files, reviews, runs, status.get("statuses", []))
