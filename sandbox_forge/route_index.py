"""Route lookup for the forge's few hundred routes.

Starlette tries a router's routes in order, a regular expression each, and most of a
request's routing went to routes that could not match it (a fifth of the forge's CPU
under the scale bench). Here a request is routed by a router holding only the routes
that can match a path with the same first segment (and, under /repos/{owner}/{repo}/,
the same fourth), in their original order. A route whose segment there is a parameter,
or that is shorter, stays in every such router, so the first match, a method mismatch's
405 and a trailing slash's redirect are what the whole table gives.
"""

from __future__ import annotations

from collections.abc import Sequence

from starlette.routing import BaseRoute, Route, Router
from starlette.types import Receive, Scope, Send

_REPOS = "repos"


def _key(path: str) -> tuple[str, str]:
    parts = path.split("/")
    first = parts[1] if len(parts) > 1 else ""
    fourth = parts[4] if first == _REPOS and len(parts) > 4 else ""
    return first, fourth


def _fits(route: BaseRoute, first: str, fourth: str) -> bool:
    """Whether `route` can match some path whose key is (first, fourth)."""
    if not isinstance(route, Route):
        return True
    segments = route.path.split("/")
    head = segments[:5]
    if any(":path}" in s for s in head) or not head[1:] or head[1].startswith("{"):
        return True
    if head[1] != first:
        return False
    if first != _REPOS or not fourth or len(segments) <= 4:
        return True
    return head[4].startswith("{") or head[4] == fourth


class IndexedRouter(Router):
    def __init__(self, routes: Sequence[BaseRoute]) -> None:
        super().__init__(routes=list(routes))
        self._narrow: dict[tuple[str, str], Router] = {}

    def _for(self, path: str) -> Router:
        key = _key(path)
        router = self._narrow.get(key)
        if router is None:
            if len(self._narrow) > 4096:  # keys come from requests: keep them bounded
                self._narrow.clear()
            subset = [r for r in self.routes if _fits(r, *key)]
            router = Router(routes=subset, redirect_slashes=self.redirect_slashes)
            router.default = self.default
            self._narrow[key] = router
        return router

    async def app(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await super().app(scope, receive, send)
            return
        path, root = scope["path"], scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        await self._for(path).app(scope, receive, send)
