"""The admin API under /_sandbox/: seed, mint tokens, inject faults, read the request log.

Every call needs the forge's admin token, as `Authorization: Bearer <token>` or
`X-Sandbox-Admin: <token>`. Other modules add their own admin routes with `admin_route`.
"""

from __future__ import annotations

import base64
import hmac
import json
from collections.abc import Callable
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.admin.seeding import repo_summary, seed_repo
from sandbox_forge.kernel.errors import ApiError, json_response
from sandbox_forge.stores.state import ForgeState

PREFIX = "/_sandbox"
AdminHandler = Callable[[ForgeState, dict[str, Any], Request], Any]


def _authorized(state: ForgeState, request: Request) -> bool:
    given = request.headers.get("x-sandbox-admin", "")
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() in ("bearer", "token"):
        given = given or value.strip()
    return bool(given) and hmac.compare_digest(given, state.admin_token)


def admin_route(path: str, handler: AdminHandler, methods: list[str], status: int = 200) -> Route:
    """A route under /_sandbox; handler(state, json_body, request) runs in a worker thread
    and returns JSON-able data (or a Response)."""

    async def endpoint(request: Request) -> Response:
        state: ForgeState = request.app.state.forge
        if not _authorized(state, request):
            raise ApiError(401, "Sandbox admin token required")
        raw = await request.body()
        try:
            body = json.loads(raw) if raw.strip() else {}
        except ValueError:
            raise ApiError(400, "Problems parsing JSON") from None
        if not isinstance(body, dict):
            raise ApiError(400, "Problems parsing JSON")
        try:
            result = await run_in_threadpool(handler, state, body, request)
        except (ValueError, TypeError, KeyError) as exc:
            raise ApiError(422, str(exc)) from exc
        if isinstance(result, Response):
            return result
        if result is None:
            return Response(status_code=204)
        return json_response(result, status=status)

    return Route(PREFIX + path, endpoint, methods=methods)


def _files(body: dict[str, Any], key: str = "files") -> dict[str, Any]:
    files: dict[str, Any] = dict(body.get(key) or {})
    for path, encoded in (body.get(f"{key}_base64") or {}).items():
        files[path] = base64.b64decode(encoded)
    return files


def _seed(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    branches = {name: dict(files) for name, files in (body.get("branches") or {}).items()}
    for name, files in (body.get("branches_base64") or {}).items():
        branches.setdefault(name, {}).update({p: base64.b64decode(v) for p, v in files.items()})
    repo = seed_repo(
        state,
        body["full_name"],
        _files(body),
        default_branch=body.get("default_branch", "main"),
        private=bool(body.get("private", False)),
        description=body.get("description", ""),
        branches=branches,
        source_dir=body.get("source_dir"),
    )
    return repo_summary(repo)


def _token(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    token = state.create_token(
        login=body.get("login", "octocat"),
        repos=body.get("repos"),
        access=body.get("access", "write"),
        kind=body.get("kind", "classic"),
        user_roles=bool(body.get("user_roles", False)),
    )
    record = state.tokens[token]
    return {"token": token, "login": record.login, "kind": record.kind, "access": record.access}


def _user(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    user = state.ensure_user(
        body["login"],
        type=body.get("type", "User"),
        name=body.get("name"),
        email=body.get("email"),
    )
    if body.get("password") is not None:
        state.set_password(user.login, str(body["password"]))
    return {"login": user.login, "id": user.id, "type": user.type}


def _add_fault(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    return state.faults.add(**body).as_json()


def _delete_fault(state: ForgeState, _body: dict[str, Any], request: Request) -> None:
    if not state.faults.remove(int(request.path_params["fault_id"])):
        raise ApiError(404, "Not Found")


def _app(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    installation = state.register_app(
        body["app_id"],
        body["public_key_pem"],
        int(body["installation_id"]),
        repos=body.get("repos"),
        token_ttl_seconds=int(body.get("token_ttl_seconds", 3600)),
        account=body.get("account"),
    )
    return {"app_id": installation.app_id, "installation_id": installation.id}


def _rate_limit(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    login = body.get("login")
    state.rate.set(
        int(body["remaining"]),
        reset=body.get("reset"),
        resource=body.get("resource", "core"),
        key=f"user:{login.lower()}" if login else None,
        limit=body.get("limit"),
    )
    return {"ok": True}


def _settings(state: ForgeState, body: dict[str, Any], _request: Request) -> dict[str, Any]:
    if "latency_ms" in body:
        state.latency_ms = int(body["latency_ms"])
    if "record_responses" in body:
        state.log.record_responses = bool(body["record_responses"])
    if "tree_truncate_limit" in body:
        state.tree_truncate_limit = int(body["tree_truncate_limit"])
    return {
        "latency_ms": state.latency_ms,
        "record_responses": state.log.record_responses,
        "tree_truncate_limit": state.tree_truncate_limit,
    }


def _info(state: ForgeState, _body: dict[str, Any], _request: Request) -> dict[str, Any]:
    return {
        "repos": sorted(r.full_name for r in state.all_repos()),
        "users": sorted(u.login for u in state.users.values()),
        "faults": len(state.faults.list()),
    }


def routes(state: ForgeState) -> list[Route]:
    def clear(action: Callable[[], None]) -> AdminHandler:
        return lambda _state, _body, _request: action()

    return [
        admin_route("", _info, ["GET"]),
        admin_route("/repos", _seed, ["POST"], status=201),
        admin_route(
            "/repos",
            lambda s, _b, _r: [repo_summary(r) for r in s.all_repos()],
            ["GET"],
        ),
        admin_route("/users", _user, ["POST"], status=201),
        admin_route("/tokens", _token, ["POST"], status=201),
        admin_route("/apps", _app, ["POST"], status=201),
        admin_route("/faults", _add_fault, ["POST"], status=201),
        admin_route("/faults", lambda s, _b, _r: s.faults.list(), ["GET"]),
        admin_route("/faults", clear(state.faults.clear), ["DELETE"]),
        admin_route("/faults/{fault_id:int}", _delete_fault, ["DELETE"]),
        admin_route("/requests", lambda s, _b, _r: s.log.entries(), ["GET"]),
        admin_route("/requests", clear(state.log.clear), ["DELETE"]),
        admin_route("/responses", lambda s, _b, _r: s.log.responses(), ["GET"]),
        admin_route("/responses", clear(state.log.clear_responses), ["DELETE"]),
        admin_route("/rate_limit", _rate_limit, ["POST"]),
        admin_route("/settings", _settings, ["GET", "PATCH"]),
        admin_route(
            "/snapshot",
            lambda s, b, _r: {"state": str(s.snapshot(b["dir"]))},
            ["POST"],
            status=201,
        ),
    ]
