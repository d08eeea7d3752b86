"""Which sources each call read, taken from what GitHub returned.

The cross-visibility guard needs to know every repository whose content reached the
model. A tool's arguments cannot say it: a project's items, a notification, a search hit
or an organisation's advisories come from repositories no argument names. So the client
notes them where every answer passes (client.py's request methods and the cache's hits),
on the `Provenance` of the call in progress, which the pipeline opens before a tool runs
and reads into the session's read ledger after it. No tool does anything for it.

What an answer names:
- the request itself: a REST path `/repos/{owner}/{repo}/...`, a GraphQL query's
  `owner`/`name` variables;
- in the body: a repository object (REST `full_name`, GraphQL `nameWithOwner`, or a
  `repository` with `name` and `owner.login`), with its visibility when the object says
  it (`private`, `visibility`, `isPrivate`); and any object's address inside a
  repository (`url`: REST's API address, GraphQL's web address; `resourcePath`);
- sources outside repositories whose visibility the answer states: a project
  (`project:owner/number`, its `public` flag) and a gist (`gist:id`, `public`).

A source whose visibility no answer stated is recorded without one; the guard then looks
it up, and counts it as private when it cannot.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from contextvars import ContextVar, Token
from typing import Any
from urllib.parse import urlsplit

# The more private of two statements wins: a repository seen public by one answer and
# private by another counts as private.
_RANK = {"public": 0, "secret": 1, "internal": 2, "private": 3}
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$")
_REPO = re.compile(r"^[A-Za-z0-9._-]{1,100}$")
# What one answer named: (name, visibility or None) pairs, kept beside a cached answer.
Sources = tuple[tuple[str, str | None], ...]
# First segments of github.com (and API) paths that are not an owner's login.
_NOT_OWNERS = frozenset(
    """about account advisories apps app avatars codes_of_conduct codespaces collections
    contact copilot dashboard emojis enterprise enterprises events explore features feeds
    gist gists github-copilot gitignore graphql installation issues licenses login
    logout marketplace markdown meta networks new notifications organizations orgs pricing
    projects pulls rate_limit repos repositories search security settings site sponsors
    teams topics trending user users""".split()
)


def stricter(one: str | None, other: str | None) -> str | None:
    """Two statements of one source's visibility as one: a known one over none, and the
    more private of two."""
    if one is None or other is None:
        return one if other is None else other
    return one if _RANK.get(one, 3) >= _RANK.get(other, 3) else other


class Provenance:
    """What one call read: each source (lower-cased key) as spelled, and its visibility
    when an answer stated it."""

    __slots__ = ("_seen",)

    def __init__(self) -> None:
        self._seen: dict[str, tuple[str, str | None]] = {}

    def note(self, name: str, visibility: str | None = None) -> None:
        key = name.lower()
        known = self._seen.get(key)
        if known is None:
            self._seen[key] = (name, visibility)
        elif visibility is not None and known[1] != visibility:
            self._seen[key] = (known[0], stricter(known[1], visibility))

    def frozen(self) -> Sources:
        return tuple(self._seen.values())

    def absorb(self, other: Provenance) -> None:
        for name, visibility in other._seen.values():
            self.note(name, visibility)

    def __contains__(self, key: str) -> bool:
        return key in self._seen  # a lower-cased name

    def sources(self) -> dict[str, str | None]:
        """Every source read, as spelled, with its visibility or None."""
        return dict(self._seen.values())

    def __bool__(self) -> bool:
        return bool(self._seen)


_CURRENT: ContextVar[Provenance | None] = ContextVar("github_provenance", default=None)


def start(found: Provenance) -> Token[Provenance | None]:
    """Note what GitHub returns on `found` from here on (tasks started from here note on
    it too: they copy the context), until `stop`."""
    return _CURRENT.set(found)


def stop(token: Token[Provenance | None]) -> None:
    with suppress(ValueError):  # set in another context: that context ends with it
        _CURRENT.reset(token)


@contextmanager
def recording() -> Iterator[Provenance]:
    """`start` and `stop` around a block, on a fresh Provenance."""
    found = Provenance()
    token = start(found)
    try:
        yield found
    finally:
        stop(token)


def current() -> Provenance | None:
    return _CURRENT.get()


def note(name: str, visibility: str | None = None) -> None:
    """Note a repository (`owner/repo`) read by a way that is not a GitHub answer the
    client parses (a git clone or fetch)."""
    found = _CURRENT.get()
    if found is not None:
        found.note(name, visibility)


class AnswerReader:
    """Finds the sources in GitHub's answers, for one API host and its web host: a fresh
    body while it is parsed (a hook on each JSON object), a cached one by what its parse
    found (`replay`) or, when that was not kept, by walking it (`body`)."""

    def __init__(self, api_base: str, web_base: str) -> None:
        self._api = api_base.rstrip("/")
        self._api_path = urlsplit(self._api).path.rstrip("/")
        self._repos = self._api + "/repos/"
        self._gists = self._api + "/gists/"
        self._web = web_base.rstrip("/") + "/"

    # -- the request ---------------------------------------------------------------
    def request(self, path: str, variables: Any = None) -> None:
        """The repository a request names (a REST path, or GraphQL's owner and name)."""
        found = _CURRENT.get()
        if found is None:
            return
        name = self._api_repo(path)
        if name is not None:
            found.note(name)
        if isinstance(variables, dict):
            owner, repo = variables.get("owner"), variables.get("name")
            if _valid(owner, repo):
                found.note(f"{owner}/{repo}")

    def _api_repo(self, url: str) -> str | None:
        """`owner/repo` of an API address or path under /repos/, else None."""
        if url.startswith(self._api):
            url = url[len(self._api) :]
        elif url.startswith("http"):
            return None
        elif self._api_path and url.startswith(self._api_path + "/"):
            url = url[len(self._api_path) :]
        if not url.startswith("/repos/"):
            return None
        parts = url.split("/", 4)
        if len(parts) < 4:
            return None
        repo = parts[3].split("?", 1)[0].split("#", 1)[0]
        return f"{parts[2]}/{repo}" if _valid(parts[2], repo) else None

    # -- the body ------------------------------------------------------------------
    def parse(self, content: bytes) -> Any:
        """The JSON body, its sources noted on the call in progress as it is parsed."""
        return self.parse_named(content)[0]

    def parse_named(self, content: bytes) -> tuple[Any, Sources | None]:
        """The JSON body and the sources it names (None outside a call: not looked at),
        noted on the call in progress. A cache keeps the sources beside the body, so a
        cached answer served again notes them without a second look (`replay`)."""
        found = _CURRENT.get()
        if found is None:
            return json.loads(content), None
        named = Provenance()
        look = self._object

        def hook(node: dict[str, Any]) -> dict[str, Any]:
            look(node, named)
            return node

        data = json.loads(content, object_hook=hook)
        found.absorb(named)
        return data, named.frozen()

    @staticmethod
    def replay(sources: Sources) -> None:
        """Note what an answer named when it was parsed (a cached answer served again)."""
        found = _CURRENT.get()
        if found is not None:
            for name, visibility in sources:
                found.note(name, visibility)

    def body(self, data: Any) -> Sources | None:
        """Every source an already parsed body names (a cached answer whose sources were
        not kept), noted on the call in progress; None outside a call."""
        found = _CURRENT.get()
        if found is None:
            return None
        named = Provenance()
        stack: list[Any] = [data] if type(data) is dict or type(data) is list else []
        pop, push = stack.pop, stack.append
        while stack:
            node = pop()
            values = node if type(node) is list else node.values()
            if type(node) is dict:
                self._object(node, named)
            for value in values:
                if type(value) is dict or type(value) is list:
                    push(value)
        found.absorb(named)
        return named.frozen()

    def _object(self, node: dict[str, Any], found: Provenance) -> None:
        name = node.get("full_name") or node.get("nameWithOwner")
        if type(name) is str:
            login, _, repo = name.partition("/")
            if _valid(login, repo):
                found.note(name, _visibility(node))
        repository = node.get("repository")
        if type(repository) is dict and "full_name" not in repository:
            owner = repository.get("owner")
            holder = owner.get("login") if type(owner) is dict else None
            if "nameWithOwner" not in repository and _valid(holder, repository.get("name")):
                found.note(f"{holder}/{repository['name']}", _visibility(repository))
        url = node.get("url")
        if type(url) is str:
            self._address(url, node, found)
        path = node.get("resourcePath")
        if type(path) is str and path.startswith("/") and not path.startswith("//"):
            self._web_path(path, node, found)

    def _address(self, url: str, node: dict[str, Any], found: Provenance) -> None:
        if url.startswith(self._repos):
            owner, _, rest = url[len(self._repos) :].partition("/")
            repo = rest.split("/", 1)[0].split("?", 1)[0].split("#", 1)[0]
            name = f"{owner}/{repo}"
            if name.lower() in found or _valid(owner, repo):
                found.note(name)
        elif url.startswith(self._gists):
            _stated_outside(["", "gists", url[len(self._gists) :].split("/", 1)[0]], node, found)
        elif url.startswith(self._web):
            self._web_path(url[len(self._web) - 1 :], node, found)

    def _web_path(self, path: str, node: dict[str, Any], found: Provenance) -> None:
        """A github.com path: `/{owner}/{repo}/...`, a project's or nothing."""
        parts = path.split("?", 1)[0].split("#", 1)[0].split("/")
        if len(parts) < 3:
            return
        owner, repo = parts[1], parts[2].removesuffix(".git")
        if owner.lower() in _NOT_OWNERS:
            _stated_outside(parts, node, found)
        elif _valid(owner, repo):
            exact = len(parts) == 3 or (len(parts) == 4 and parts[3] == "")
            # an object at the repository's own address states its visibility
            found.note(f"{owner}/{repo}", _visibility(node) if exact else None)


def _stated_outside(parts: list[str], node: dict[str, Any], found: Provenance) -> None:
    """A project (`/orgs|users/{owner}/projects/{n}`) or a gist (`/gists/{id}`) whose
    object states whether it is public; nothing when it does not say."""
    public = node.get("public")
    if type(public) is not bool:
        return
    if parts[1] in ("orgs", "users") and len(parts) >= 5 and parts[3] == "projects":
        found.note(f"project:{parts[2]}/{parts[4]}", "public" if public else "private")
    elif parts[1] == "gists" and len(parts) >= 3 and parts[2]:
        found.note(f"gist:{parts[2]}", "public" if public else "secret")


def _valid(owner: Any, repo: Any) -> bool:
    return (
        type(owner) is str
        and type(repo) is str
        and _OWNER.match(owner) is not None
        and _REPO.match(repo) is not None
        and repo not in (".", "..")
    )


def _visibility(node: dict[str, Any]) -> str | None:
    """What a repository object says of its visibility, if anything."""
    stated = node.get("visibility")
    if isinstance(stated, str) and stated:
        return stated.lower()
    private = node.get("private", node.get("isPrivate"))
    if type(private) is bool:
        return "private" if private else "public"
    return None
