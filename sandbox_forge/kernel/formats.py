"""GitHub's formats every layer writes: timestamps, node ids and the short user object."""

from __future__ import annotations

import base64
import time
from email.utils import formatdate
from typing import Any, Protocol

from sandbox_forge.kernel.urls import Urls


class Account(Protocol):
    """What the short user object needs of a user record (stores.records.UserRecord)."""

    @property
    def login(self) -> str: ...

    @property
    def id(self) -> int: ...

    @property
    def type(self) -> str: ...


def iso(ts: float) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ts))


def http_date(ts: float) -> str:
    return formatdate(ts, usegmt=True)


def node_id(kind: str, ident: Any) -> str:
    """Legacy-style global node ids, e.g. base64("010:Repository1")."""
    codes = {"User": "04", "Organization": "012", "Bot": "03", "Repository": "010"}
    text = f"{codes.get(kind, '06')}:{kind}{ident}"
    return base64.b64encode(text.encode()).decode()


def simple_user(urls: Urls, user: Account) -> dict[str, Any]:
    api = urls.user(user.login)
    return {
        "login": user.login,
        "id": user.id,
        "node_id": node_id(user.type, user.id),
        "avatar_url": f"{urls.web}/avatars/u/{user.id}?v=4",
        "gravatar_id": "",
        "url": api,
        "html_url": f"{urls.web}/{user.login}",
        "followers_url": f"{api}/followers",
        "following_url": f"{api}/following{{/other_user}}",
        "gists_url": f"{api}/gists{{/gist_id}}",
        "starred_url": f"{api}/starred{{/owner}}{{/repo}}",
        "subscriptions_url": f"{api}/subscriptions",
        "organizations_url": f"{api}/orgs",
        "repos_url": f"{api}/repos",
        "events_url": f"{api}/events{{/privacy}}",
        "received_events_url": f"{api}/received_events",
        "type": user.type,
        "user_view_type": "public",
        "site_admin": False,
    }
