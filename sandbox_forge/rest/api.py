"""What every REST handler needs: the request context, URLs, media types and pagination.

Handlers are plain functions `fn(ctx) -> Response` wrapped with `@endpoint`: the body is
read on the event loop, then the function runs in a worker thread, because git calls block.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import parse_qsl, quote, urlencode

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response

from sandbox_forge.kernel.errors import ApiError, json_response
from sandbox_forge.kernel.urls import Urls, urls_for_scope
from sandbox_forge.rest.auth import Principal, check_repo
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.state import ForgeState

DEFAULT_PER_PAGE = 30
MAX_PER_PAGE = 100


@dataclass(frozen=True)
class MediaType:
    """The custom media type asked for in Accept: param is raw, diff, patch, sha, object…"""

    param: str | None = None

    @classmethod
    def parse(cls, accept: str | None) -> MediaType:
        for part in (accept or "").split(","):
            mime = part.split(";")[0].strip().lower()
            if not mime.startswith("application/vnd.github"):
                continue
            rest = mime[len("application/vnd.github") :].removesuffix("+json")
            names = [n for n in rest.split(".") if n and n not in ("v3", "v4")]
            if names:
                return cls(names[0])
        return cls()


class Ctx:
    """One REST request, as handlers see it."""

    def __init__(self, request: Request, body: bytes):
        self.request = request
        self.body = body
        self.state: ForgeState = request.app.state.forge
        self.principal: Principal = request.scope["forge.principal"]
        self.urls: Urls = urls_for_scope(request.scope)
        self.params: dict[str, Any] = dict(request.path_params)  # {x:int} routes give ints
        self.query = request.query_params
        self.media = MediaType.parse(request.headers.get("accept"))

    def json(self) -> dict[str, Any]:
        """The request body as a JSON object; GitHub answers 400 to anything else."""
        if not self.body.strip():
            return {}
        try:
            data = json.loads(self.body)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, "Problems parsing JSON") from exc
        if not isinstance(data, dict):
            raise ApiError(400, "Problems parsing JSON")
        return data

    def repo(self, write: bool = False, need: str | None = None) -> RepoRecord:
        """The path's repository: 404 if the caller cannot read it, 403 if write (or the
        role named by need, say "admin") is asked and they lack it."""
        owner, name = self.params["owner"], self.params["repo"]
        return check_repo(self.principal, self.state.repo(owner, name), write, need)

    # --- pagination -----------------------------------------------------------------------

    def page(self) -> tuple[int, int]:
        return _int(self.query.get("page"), 1, 1, None), _int(
            self.query.get("per_page"), DEFAULT_PER_PAGE, 1, MAX_PER_PAGE
        )

    def link_header(self, page: int, per_page: int, total: int) -> str | None:
        """GitHub's Link header: prev, next, last, first, each only where it applies."""
        last = max(1, math.ceil(total / per_page))
        rels: list[tuple[str, int]] = []
        if page > 1:
            rels.append(("prev", page - 1))
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        if page > 1:
            rels.append(("first", 1))
        if not rels:
            return None
        return ", ".join(f'<{self._page_url(n)}>; rel="{rel}"' for rel, n in rels)

    def _page_url(self, page: int) -> str:
        pairs = parse_qsl(self.request.url.query, keep_blank_values=True)
        if any(k == "page" for k, _ in pairs):
            pairs = [(k, str(page) if k == "page" else v) for k, v in pairs]
        else:
            pairs.append(("page", str(page)))
        path = quote(self.request.scope.get("forge.original_path", self.request.url.path))
        return f"{self.urls.web}{path}?{urlencode(pairs)}"

    def paginate(self, items: Sequence[Any], shape: Callable[[Any], Any] | None = None) -> Response:
        """One page of an in-memory list, with the Link header."""
        page, per_page = self.page()
        chunk = items[(page - 1) * per_page : page * per_page]
        data = [shape(i) for i in chunk] if shape else list(chunk)
        return self.paged_response(data, page, per_page, len(items))

    def paged_response(self, data: Any, page: int, per_page: int, total: int) -> Response:
        link = self.link_header(page, per_page, total)
        return json_response(data, headers={"link": link} if link else None)


def _int(raw: str | None, default: int, low: int, high: int | None) -> int:
    try:
        value = int(raw) if raw not in (None, "") else default
    except ValueError:
        return default
    value = max(low, value)
    return min(high, value) if high is not None else value


def endpoint(fn: Callable[[Ctx], Response]) -> Callable[[Request], Any]:
    async def handler(request: Request) -> Response:
        body = await request.body()
        return await run_in_threadpool(fn, Ctx(request, body))

    handler.__name__ = fn.__name__
    handler.__doc__ = fn.__doc__
    return handler
