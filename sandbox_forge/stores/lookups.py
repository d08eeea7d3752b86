"""What the collaboration areas share on top of their records (`collab.py`): finding them
(issues and pull requests by number, with GitHub's 404; repositories by id; node ids),
labels made on first use, the open-issue count, who a write is attributed to, and the
small JSON pieces every area writes (users, labels, timestamps, a page of a list)."""

from __future__ import annotations

import base64
import binascii
import time
from typing import Any

from sandbox_forge.kernel.errors import ApiError, not_found
from sandbox_forge.kernel.formats import iso, simple_user
from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores import access
from sandbox_forge.stores.collab import Issue, Label, collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState


def now() -> float:
    return time.time()


def iso_or_none(ts: float | None) -> str | None:
    return iso(ts) if ts is not None else None


def user_json(state: ForgeState, urls: Urls, login: str) -> dict[str, Any]:
    return simple_user(urls, state.ensure_user(login))


def user_or_none(state: ForgeState, urls: Urls, login: str | None) -> dict[str, Any] | None:
    return user_json(state, urls, login) if login else None


def author_association(state: ForgeState, repo: RepoRecord, login: str | None) -> str:
    """OWNER, MEMBER (of the owning organisation), COLLABORATOR (a direct role on
    the repository) or NONE, from the repository roles the forge keeps."""
    return access.association(state, repo, login)


def node_id(prefix: str, repo: RepoRecord, ident: int) -> str:
    """GitHub's newer opaque node ids (PR_kwDO…, PRRT_kwDO…): prefix plus repo and id."""
    raw = base64.urlsafe_b64encode(f"{repo.id}:{ident}".encode()).decode().rstrip("=")
    return f"{prefix}_kwDO{raw}"


def parse_node_id(value: str) -> tuple[str, int, int] | None:
    """(prefix, repo id, record id) from node_id(), or None for anything else."""
    prefix, sep, rest = value.partition("_kwDO")
    if not sep or not prefix or not rest:
        return None
    try:
        text = base64.urlsafe_b64decode(rest + "=" * (-len(rest) % 4)).decode()
        repo_id, ident = (int(part) for part in text.split(":"))
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None
    return prefix, repo_id, ident


def repo_by_id(state: ForgeState, repo_id: int) -> RepoRecord | None:
    return next((r for r in state.repos.values() if r.id == repo_id), None)


def sync_open_count(repo: RepoRecord) -> None:
    """GitHub's open_issues_count counts open issues and open pull requests."""
    data = collab(repo)
    repo.extra["open_issues_count"] = sum(1 for i in data.issues.values() if i.state == "open")


def get_issue(repo: RepoRecord, number: Any) -> Issue:
    try:
        issue = collab(repo).issues.get(int(number))
    except (TypeError, ValueError):
        issue = None
    if issue is None:
        raise not_found()
    return issue


def get_pull(repo: RepoRecord, number: Any) -> Issue:
    issue = get_issue(repo, number)
    if issue.pull is None:
        raise not_found()
    return issue


def ensure_label(state: ForgeState, repo: RepoRecord, name: str) -> Label:
    """Labels are created on first use, as when GitHub applies an unknown label name."""
    data = collab(repo)
    label = data.labels.get(name.lower())
    if label is None:
        label = Label(id=state.next_id(), name=name)
        data.labels[name.lower()] = label
    return label


def label_json(urls: Urls, repo: RepoRecord, label: Label) -> dict[str, Any]:
    return {
        "id": label.id,
        "node_id": node_id("LA", repo, label.id),
        "url": f"{urls.repo(repo.full_name)}/labels/{label.name}",
        "name": label.name,
        "description": label.description,
        "color": label.color,
        "default": label.default,
    }


def actor_login(principal: Any) -> str:
    """The login a write is attributed to; App JWTs cannot act on repositories."""
    login = getattr(principal, "login", None)
    if not login:
        raise ApiError(403, "Resource not accessible by integration")
    return login


def page_window(items: list[Any], page: int, per_page: int) -> list[Any]:
    return items[(page - 1) * per_page : page * per_page]
