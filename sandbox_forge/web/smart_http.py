"""Git smart HTTP (clone, fetch, push) through `git http-backend`, with GitHub's auth rules.

The request body is streamed into the CGI process and its output streamed back, so large
pushes and packs never sit in memory. git's gzip'd request bodies are inflated by
http-backend itself (HTTP_CONTENT_ENCODING).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
from collections.abc import AsyncIterator

from starlette.concurrency import run_in_threadpool
from starlette.requests import ClientDisconnect, Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route
from starlette.types import Receive, Scope, Send

from sandbox_forge.rest.auth import credential_from_header, repo_role, token_principal
from sandbox_forge.rules.push import PendingPush, forget, has_rules, own_address, push_env
from sandbox_forge.stores.access import at_least
from sandbox_forge.stores.records import RefUpdate, RepoRecord, TokenRecord
from sandbox_forge.stores.state import ForgeState

log = logging.getLogger("sandbox_forge")

SERVICES = ("git-upload-pack", "git-receive-pack")
CHUNK = 64 * 1024


def _unauthorized() -> Response:
    return PlainTextResponse(
        "Invalid username or token. Password authentication is not supported for Git operations.\n",
        status_code=401,
        headers={"www-authenticate": 'Basic realm="GitHub"'},
    )


def _authorize(
    state: ForgeState, request: Request, repo: RepoRecord | None, push: bool
) -> tuple[Response | None, TokenRecord | None]:
    """GitHub's answers: 401 asks for credentials, 404 hides, 403 refuses a push."""
    credential = credential_from_header(request.headers.get("authorization"))
    token = None
    if credential:
        token = state.tokens.get(credential)
        if token is None or token.expired():
            return _unauthorized(), None
    if token is None and (repo is None or repo.private or push):
        return _unauthorized(), None
    client_ip = request.client.host if request.client else "127.0.0.1"
    role = None
    if repo is not None:
        role = repo_role(token_principal(state, token, client_ip), repo) if token else "read"
    if repo is None or role is None:
        return PlainTextResponse("Repository not found.\n", status_code=404), token
    if push and (token is None or not at_least(role, "write")):
        who = token.login if token else "anonymous"
        text = f"Permission to {repo.full_name}.git denied to {who}.\n"
        return PlainTextResponse(text, status_code=403), token
    return None, token


async def git_service(request: Request) -> Response:
    state: ForgeState = request.app.state.forge
    action = request.url.path.rsplit("/", 1)[-1]
    if action == "refs":
        action = "info/refs"
        service = request.query_params.get("service")
        if service not in SERVICES:
            return PlainTextResponse("Please upgrade your git client.\n", status_code=403)
    else:
        service = action
    push = service == "git-receive-pack"
    repo = state.repo(request.path_params["owner"], request.path_params["repo"])
    denied, token = _authorize(state, request, repo, push)
    if denied is not None:
        return denied
    assert repo is not None
    is_push = push and action != "info/refs"
    rules_env: dict[str, str] = {}
    key = None
    if is_push and has_rules(repo):  # every pushed ref then goes past the rules hook
        client_ip = request.client.host if request.client else "127.0.0.1"
        role = repo_role(token_principal(state, token, client_ip), repo) if token else None
        web = f"{own_address(request)}/{repo.full_name}"
        pending = PendingPush(repo.full_name, role, web)
        rules_env, key = push_env(state, own_address(request), pending)
    return await _run_backend(state, request, repo, action, token, is_push, rules_env, key)


def _cgi_env(
    state: ForgeState,
    request: Request,
    repo: RepoRecord,
    action: str,
    token: TokenRecord | None,
    rules_env: dict[str, str],
) -> dict[str, str]:
    """git http-backend's CGI environment: only what it needs, nothing of the forge's own."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": os.environ.get("HOME", "/tmp"),  # noqa: S108 - git only reads config there
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_PROJECT_ROOT": str(state.repos_dir),
        "GIT_HTTP_EXPORT_ALL": "1",
        "PATH_INFO": f"/{repo.owner}/{repo.name}.git/{action}",
        "REQUEST_METHOD": request.method,
        "QUERY_STRING": request.url.query,
        "CONTENT_TYPE": request.headers.get("content-type", ""),
        "REMOTE_USER": token.login if token else "",
        "REMOTE_ADDR": (request.client.host if request.client else "127.0.0.1"),
        "SERVER_PROTOCOL": "HTTP/1.1",
        **rules_env,
    }
    for header, variable in (
        ("content-length", "CONTENT_LENGTH"),
        ("content-encoding", "HTTP_CONTENT_ENCODING"),
        ("git-protocol", "GIT_PROTOCOL"),
    ):
        if header in request.headers:
            env[variable] = request.headers[header]
    return env


async def _run_backend(
    state: ForgeState,
    request: Request,
    repo: RepoRecord,
    action: str,
    token: TokenRecord | None,
    is_push: bool,
    rules_env: dict[str, str],
    rules_key: str | None,
) -> Response:
    before = await run_in_threadpool(repo.git.list_refs) if is_push else []
    env = _cgi_env(state, request, repo, action, token, rules_env)
    proc = await asyncio.create_subprocess_exec(
        "git",
        "http-backend",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=env,
    )
    feeder = asyncio.create_task(_feed(request, proc))
    stderr_task = asyncio.create_task(proc.stderr.read())  # type: ignore[union-attr]
    status, headers = await _read_cgi_headers(proc)

    async def body() -> AsyncIterator[bytes]:
        try:
            while chunk := await proc.stdout.read(CHUNK):  # type: ignore[union-attr]
                yield chunk
            await feeder
            await proc.wait()
            errors = await stderr_task
            if proc.returncode:
                log.warning("git http-backend exited %s: %s", proc.returncode, errors[-500:])
            if is_push:
                await _after_push(state, repo, before)
        finally:
            if rules_key is not None:
                forget(state, rules_key)
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()
            feeder.cancel()

    return _PipeResponse(status, headers, body())


class _PipeResponse(Response):
    """Streams the CGI output. Unlike StreamingResponse it never reads `receive`, which
    the request-body feeder owns: two readers would steal each other's messages."""

    def __init__(self, status: int, headers: dict[str, str], chunks: AsyncIterator[bytes]):
        # Not Response.__init__: it would add "content-length: 0" for the empty body.
        self.status_code = status
        self.background = None
        self.raw_headers = [
            (k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()
        ]
        self.chunks = chunks

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        await send(
            {"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers}
        )
        async for chunk in self.chunks:
            await send({"type": "http.response.body", "body": chunk, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})


async def _feed(request: Request, proc: asyncio.subprocess.Process) -> None:
    stdin = proc.stdin
    assert stdin is not None
    try:
        async for chunk in request.stream():
            if chunk:
                stdin.write(chunk)
                await stdin.drain()
    except (BrokenPipeError, ConnectionResetError, ClientDisconnect):
        pass
    finally:
        with contextlib.suppress(Exception):
            stdin.close()


async def _read_cgi_headers(proc: asyncio.subprocess.Process) -> tuple[int, dict[str, str]]:
    status, headers = 200, {}
    assert proc.stdout is not None
    while True:
        line = (await proc.stdout.readline()).decode("latin-1").rstrip("\r\n")
        if not line:
            break
        name, _, value = line.partition(":")
        if name.lower() == "status":
            status = int(value.strip().split()[0])
        else:
            headers[name.strip()] = value.strip()
    return status, headers


async def _after_push(state: ForgeState, repo: RepoRecord, before: list) -> None:
    after = await run_in_threadpool(repo.git.list_refs)
    old = {name: sha for name, sha, _ in before}
    new = {name: sha for name, sha, _ in after}
    if not old and new and f"refs/heads/{repo.default_branch}" not in new:
        # GitHub makes the first branch pushed to an empty repository its default.
        first = next((n for n in new if n.startswith("refs/heads/")), None)
        if first:
            repo.default_branch = first[len("refs/heads/") :]
            await run_in_threadpool(repo.git.set_head, repo.default_branch)
    for name in sorted(set(old) | set(new)):
        if old.get(name) != new.get(name):
            update = RefUpdate(repo.full_name, name, old.get(name), new.get(name), "push")
            await run_in_threadpool(state.fire_ref_update, update)


def routes(state: ForgeState) -> list[Route]:
    return [
        Route("/{owner}/{repo}/info/refs", git_service, methods=["GET"]),
        Route("/{owner}/{repo}/git-upload-pack", git_service, methods=["POST"]),
        Route("/{owner}/{repo}/git-receive-pack", git_service, methods=["POST"]),
    ]
