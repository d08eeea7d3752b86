"""Assembly of the forge's ASGI app from feature modules.

A feature module exposes `routes(state) -> list[Route]` and, optionally, `setup(state)`
(to attach stores to the state or subscribe to ref updates). To add a feature, write a
new module and append it to FEATURES.
"""

from __future__ import annotations

from types import ModuleType

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from . import (
    admin,
    admin_collab,
    git_http,
    graphql_api,
    pulls_merge,
    routes_actions,
    routes_checks,
    routes_commits,
    routes_contents,
    routes_gitdata,
    routes_issues,
    routes_protection,
    routes_pulls,
    routes_refs,
    routes_repos,
    routes_reviews,
    routes_search,
    routes_users,
)
from .errors import ApiError, error_body, json_response
from .middleware import ForgeMiddleware
from .state import ForgeState

FEATURES: list[ModuleType] = [
    routes_users,
    routes_repos,
    routes_refs,
    routes_gitdata,
    routes_commits,
    routes_contents,
    routes_search,
    git_http,
    admin,
    # Collaboration: issues, pull requests, reviews, checks, Actions, protection, GraphQL.
    routes_issues,
    routes_pulls,
    pulls_merge,
    routes_reviews,
    routes_checks,
    routes_actions,
    routes_protection,
    graphql_api,
    admin_collab,
]


def _catch_all_last(route: BaseRoute) -> bool:
    # Routes with a {name:path} parameter swallow deeper paths, so more specific routes
    # (say /commits/{ref}/status) must be tried first, whichever module declares them.
    return isinstance(route, Route) and ":path}" in route.path


async def _api_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ApiError)
    return exc.response()


async def _http_error(_request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    # GitHub answers an unknown path, or a method a path lacks, with a JSON 404.
    status = 404 if exc.status_code in (404, 405) else exc.status_code
    message = "Not Found" if status == 404 else str(exc.detail)
    return json_response(error_body(status, message), status)


def build_app(state: ForgeState, features: list[ModuleType] | None = None) -> Starlette:
    routes: list[BaseRoute] = []
    for feature in features or FEATURES:
        setup = getattr(feature, "setup", None)
        if setup is not None:
            setup(state)
        routes += feature.routes(state)
    routes.sort(key=_catch_all_last)
    app = Starlette(
        routes=routes,
        middleware=[Middleware(ForgeMiddleware, state=state)],
        exception_handlers={ApiError: _api_error, HTTPException: _http_error},
    )
    app.state.forge = state
    return app
