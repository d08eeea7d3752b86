"""The forge's indexed routing (sandbox_forge/route_index.py) picks, for every route's
own paths and their neighbours, the route the whole table picks: the same full match,
the same method mismatch (405) and the same match of the slash variant (a redirect)."""

from __future__ import annotations

import re

from starlette.routing import Match

from sandbox_forge.app import build_app
from sandbox_forge.route_index import IndexedRouter
from sandbox_forge.stores.state import ForgeState

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")


def _first(routes, method: str, path: str) -> tuple[str, str | None]:
    partial = None
    scope = {"type": "http", "path": path, "method": method, "root_path": ""}
    for route in routes:
        match, _ = route.matches(scope)
        if match == Match.FULL:
            return "full", route.path
        if match == Match.PARTIAL and partial is None:
            partial = route.path
    return ("partial", partial) if partial else ("none", None)


def _paths(templates: list[str]) -> set[str]:
    paths = {"/", "/repos", "/repos/", "/repos/o", "/repos/o/r", "/repos/o/r/", "/nothing"}
    for template in templates:
        path = re.sub(r"\{[^}:]+:path\}", "a/b/c.txt", template)
        path = re.sub(r"\{[^}]+\}", "x1", path)
        paths |= {path, path + "/", path.rstrip("/") or "/", path + "/extra", "/api/v3" + path}
    return paths


def test_the_index_routes_every_path_as_the_whole_table_does(tmp_path):
    app = build_app(ForgeState(tmp_path))
    router = app.router
    assert isinstance(router, IndexedRouter)
    table = router.routes
    paths = _paths([route.path for route in table])
    differ = []
    for path in sorted(paths):
        for variant in {path, path[:-1] if path.endswith("/") and path != "/" else path + "/"}:
            narrow = router._for(variant).routes
            assert len(narrow) <= len(table)
            for method in METHODS:
                whole, indexed = _first(table, method, variant), _first(narrow, method, variant)
                if whole != indexed:
                    differ.append((method, variant, whole, indexed))
    assert len(paths) > 500  # every template filled in, and its neighbours
    assert not differ, differ[:10]
    repos = router._for("/repos/o/r/contents/README.md").routes
    assert len(repos) < len(table) / 5  # it does narrow the search
