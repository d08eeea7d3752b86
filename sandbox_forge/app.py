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

from sandbox_forge.admin import access_routes as admin_access
from sandbox_forge.admin import collab_routes as admin_collab
from sandbox_forge.admin import routes as admin
from sandbox_forge.graphql import endpoint as graphql_api
from sandbox_forge.kernel.errors import ApiError, error_body, json_response
from sandbox_forge.rest.middleware import ForgeMiddleware
from sandbox_forge.rest.moved import MovedRepositories
from sandbox_forge.rest.routes import (
    access as routes_access,
)
from sandbox_forge.rest.routes import (
    actions as routes_actions,
)
from sandbox_forge.rest.routes import (
    checks as routes_checks,
)
from sandbox_forge.rest.routes import (
    code_quality as routes_code_quality,
)
from sandbox_forge.rest.routes import (
    commits as routes_commits,
)
from sandbox_forge.rest.routes import (
    contents as routes_contents,
)
from sandbox_forge.rest.routes import (
    copilot as routes_copilot,
)
from sandbox_forge.rest.routes import (
    gists as routes_gists,
)
from sandbox_forge.rest.routes import (
    gitdata as routes_gitdata,
)
from sandbox_forge.rest.routes import (
    issue_labels as routes_issue_labels,
)
from sandbox_forge.rest.routes import (
    issue_meta as routes_issue_meta,
)
from sandbox_forge.rest.routes import (
    issues as routes_issues,
)
from sandbox_forge.rest.routes import (
    labels as routes_labels,
)
from sandbox_forge.rest.routes import (
    milestones as routes_milestones,
)
from sandbox_forge.rest.routes import (
    notifications as routes_notifications,
)
from sandbox_forge.rest.routes import (
    oauth_apps as routes_oauth_apps,
)
from sandbox_forge.rest.routes import (
    pending_reviews,
    pulls_merge,
    pulls_update_branch,
    review_requests,
)
from sandbox_forge.rest.routes import (
    projects as routes_projects,
)
from sandbox_forge.rest.routes import (
    protection as routes_protection,
)
from sandbox_forge.rest.routes import (
    pulls as routes_pulls,
)
from sandbox_forge.rest.routes import (
    reactions as routes_reactions,
)
from sandbox_forge.rest.routes import (
    refs as routes_refs,
)
from sandbox_forge.rest.routes import (
    releases as routes_releases,
)
from sandbox_forge.rest.routes import (
    repo_admin as routes_repo_admin,
)
from sandbox_forge.rest.routes import (
    repos as routes_repos,
)
from sandbox_forge.rest.routes import (
    reviews as routes_reviews,
)
from sandbox_forge.rest.routes import (
    rules as routes_rules,
)
from sandbox_forge.rest.routes import (
    rulesets as routes_rulesets,
)
from sandbox_forge.rest.routes import (
    search as routes_search,
)
from sandbox_forge.rest.routes import (
    security as routes_security,
)
from sandbox_forge.rest.routes import (
    social as routes_social,
)
from sandbox_forge.rest.routes import (
    sub_issues as routes_sub_issues,
)
from sandbox_forge.rest.routes import (
    users as routes_users,
)
from sandbox_forge.route_index import IndexedRouter
from sandbox_forge.rules import push as push_rules
from sandbox_forge.stores.state import ForgeState
from sandbox_forge.web import oauth_flow, oauth_token
from sandbox_forge.web import smart_http as git_http

FEATURES: list[ModuleType] = [
    routes_users,
    routes_repos,
    routes_repo_admin,
    routes_refs,
    routes_gitdata,
    routes_commits,
    routes_contents,
    routes_search,
    git_http,
    push_rules,
    admin,
    # Collaboration: issues, pull requests, reviews, checks, Actions, protection, GraphQL.
    routes_issues,
    routes_issue_labels,
    routes_pulls,
    review_requests,
    pulls_merge,
    pulls_update_branch,
    routes_reviews,
    pending_reviews,
    routes_checks,
    routes_actions,
    routes_protection,
    routes_rules,
    routes_rulesets,
    graphql_api,
    admin_collab,
    # Sign-in: the OAuth web flow, organisations and repository collaborators.
    oauth_flow,
    oauth_token,
    routes_access,
    routes_oauth_apps,
    admin_access,
    # Breadth: releases and tags, labels, stars and teams, gists, reactions.
    routes_releases,
    routes_labels,
    routes_social,
    routes_gists,
    routes_reactions,
    routes_sub_issues,
    routes_milestones,
    # Code security: alerts and advisories.
    routes_security,
    routes_notifications,
    # Issue types and fields, Copilot's bots, code quality findings.
    routes_issue_meta,
    routes_copilot,
    routes_code_quality,
    # Projects (v2) over REST: views (GraphQL serves the rest of them).
    routes_projects,
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
        middleware=[
            Middleware(ForgeMiddleware, state=state),
            Middleware(MovedRepositories, state=state),  # renamed/transferred repositories
        ],
        exception_handlers={ApiError: _api_error, HTTPException: _http_error},
    )
    app.router = IndexedRouter(routes)  # the same routes, looked up among fewer
    app.state.forge = state
    return app
