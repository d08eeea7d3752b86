"""JSON shapes for checks: apps, check runs and suites, commit statuses, and the
pull-request and commit summaries they (and Actions runs) embed."""

from __future__ import annotations

import base64
import zlib
from typing import Any

from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.rest.shapes.users_repos import minimal_repo
from sandbox_forge.stores.collab import CheckRun, CheckSuite, CommitStatus, collab
from sandbox_forge.stores.lookups import iso_or_none, node_id, user_json
from sandbox_forge.stores.records import RepoRecord, UserRecord
from sandbox_forge.stores.state import ForgeState

# The apps that report checks: GitHub Actions, plus any slug an admin names.
KNOWN_APPS = {"github-actions": (15368, "GitHub Actions")}
GITHUB_ORG = UserRecord(login="github", id=9919, type="Organization")


def app_id_of(slug: str) -> int:
    known = KNOWN_APPS.get(slug)
    return known[0] if known else zlib.crc32(slug.encode()) % 900_000 + 100_000


def app_json(urls: Urls, slug: str) -> dict[str, Any]:
    app_id = app_id_of(slug)
    name = KNOWN_APPS[slug][1] if slug in KNOWN_APPS else slug
    stamp = "2018-07-30T09:30:17Z"
    return {
        "id": app_id,
        "slug": slug,
        "node_id": base64.b64encode(f"03:App{app_id}".encode()).decode(),
        "client_id": f"Iv1.{app_id:016x}",
        "owner": simple_user(urls, GITHUB_ORG),
        "name": name,
        "description": "Automate your workflow from idea to production",
        "external_url": "https://help.github.com/en/actions",
        "html_url": f"{urls.web}/apps/{slug}",
        "created_at": stamp,
        "updated_at": stamp,
        "permissions": {
            "actions": "write",
            "checks": "write",
            "contents": "write",
            "metadata": "read",
            "pull_requests": "write",
            "statuses": "write",
        },
        "events": ["check_run", "check_suite", "pull_request", "push", "workflow_dispatch"],
    }


def open_pulls_for(repo: RepoRecord, sha: str, urls: Urls) -> list[dict[str, Any]]:
    """pull-request-minimal entries for the open pull requests whose head is sha."""
    api = urls.repo(repo.full_name)
    found = []
    for issue in collab(repo).issues.values():
        pull = issue.pull
        if pull is None or issue.state != "open" or pull.head_sha != sha:
            continue
        short = {"id": repo.id, "url": api, "name": repo.name}
        found.append(
            {
                "id": issue.id,
                "number": issue.number,
                "url": f"{api}/pulls/{issue.number}",
                "head": {"ref": pull.head_ref, "sha": pull.head_sha, "repo": short},
                "base": {"ref": pull.base_ref, "sha": pull.base_sha, "repo": short},
            }
        )
    return found


def check_run_json(urls: Urls, repo: RepoRecord, run: CheckRun) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    html = f"{urls.repo_html(repo.full_name)}/runs/{run.id}"
    return {
        "id": run.id,
        "name": run.name,
        "node_id": node_id("CR", repo, run.id),
        "head_sha": run.head_sha,
        "external_id": run.external_id or "",
        "url": f"{api}/check-runs/{run.id}",
        "html_url": html,
        "details_url": run.details_url or html,
        "status": run.status,
        "conclusion": run.conclusion,
        "started_at": iso_or_none(run.started_at),
        "completed_at": iso_or_none(run.completed_at),
        "output": {
            "title": run.title,
            "summary": run.summary,
            "text": run.text,
            "annotations_count": 0,
            "annotations_url": f"{api}/check-runs/{run.id}/annotations",
        },
        "check_suite": {"id": run.suite_id},
        "app": app_json(urls, run.app),
        "pull_requests": open_pulls_for(repo, run.head_sha, urls),
    }


def simple_commit(repo: RepoRecord, sha: str) -> dict[str, Any]:
    info = repo.git.read_commit(sha)
    return {
        "id": sha,
        "tree_id": info.tree,
        "message": info.message.rstrip("\n"),
        "timestamp": iso(info.committer.timestamp),
        "author": {"name": info.author.name, "email": info.author.email},
        "committer": {"name": info.committer.name, "email": info.committer.email},
    }


def check_suite_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, suite: CheckSuite
) -> dict[str, Any]:
    api = urls.repo(repo.full_name)
    runs = [r for r in collab(repo).check_runs.values() if r.suite_id == suite.id]
    return {
        "id": suite.id,
        "node_id": node_id("CS", repo, suite.id),
        "head_branch": suite.head_branch,
        "head_sha": suite.head_sha,
        "status": suite.status,
        "conclusion": suite.conclusion,
        "url": f"{api}/check-suites/{suite.id}",
        "before": None,
        "after": suite.head_sha,
        "pull_requests": open_pulls_for(repo, suite.head_sha, urls),
        "app": app_json(urls, suite.app),
        "repository": minimal_repo(state, urls, repo),
        "created_at": iso(suite.created_at),
        "updated_at": iso(suite.updated_at),
        "head_commit": simple_commit(repo, suite.head_sha),
        "latest_check_runs_count": len(runs),
        "check_runs_url": f"{api}/check-suites/{suite.id}/check-runs",
        "rerequestable": True,
        "runs_rerequestable": True,
    }


def status_json(
    state: ForgeState, urls: Urls, repo: RepoRecord, status: CommitStatus, simple: bool = False
) -> dict[str, Any]:
    creator = state.ensure_user(status.creator)
    data: dict[str, Any] = {
        "url": f"{urls.repo(repo.full_name)}/statuses/{status.sha}",
        "avatar_url": f"{urls.web}/avatars/u/{creator.id}?v=4",
        "id": status.id,
        "node_id": node_id("SC", repo, status.id),
        "state": status.state,
        "description": status.description,
        "target_url": status.target_url,
        "context": status.context,
        "created_at": iso(status.created_at),
        "updated_at": iso(status.updated_at),
    }
    if not simple:
        data["creator"] = user_json(state, urls, status.creator)
    return data
