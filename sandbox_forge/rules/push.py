"""Repository rules on `git push`: receive-pack runs push_hook.py as its proc-receive hook
(set through the http-backend's environment, only for repositories with rules), and the
hook asks the forge here, by a one-time loopback URL, about each pushed ref. Objects are
read inside the push's quarantine, so a refused push leaves nothing behind.

Refusals read as GitHub's: "GH013: Repository rule violations found for refs/heads/X."
with the rules listed (rulesets; the ref reports "push declined due to repository rule
violations"), or "GH006: Protected branch update failed for refs/heads/X." (classic
protection; "protected branch hook declined").
"""

from __future__ import annotations

import secrets
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.git.store import SHA_RE
from sandbox_forge.kernel.errors import json_response
from sandbox_forge.rules.enforce import MESSAGES, PROTECTED, Violations, check_update
from sandbox_forge.stores.collab import collab
from sandbox_forge.stores.records import RepoRecord
from sandbox_forge.stores.rulesets import rulesets
from sandbox_forge.stores.state import ForgeState

EXTENSION = "push_checks"
CHECK_PATH = "/_sandbox/push-check"
HOOK_SOURCE = Path(__file__).with_name("push_hook.py")
ZERO = "0" * 40
RULES_DECLINED = "push declined due to repository rule violations"
PROTECTION_DECLINED = "protected branch hook declined"
QUARANTINE_VARS = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


@dataclass(frozen=True)
class PendingPush:
    repo: str  # full name
    role: str | None
    web: str  # the repository's web URL, for the "Review all repository rules" line


def has_rules(repo: RepoRecord) -> bool:
    return bool(rulesets(repo)) or bool(collab(repo).protection)


def _hooks_dir(state: ForgeState) -> Path:
    """A hooks directory holding proc-receive: the hook script behind this interpreter."""
    hooks = state.repos_dir.parent / "push-hooks"
    hook = hooks / "proc-receive"
    if not hook.exists():
        hooks.mkdir(parents=True, exist_ok=True)
        hook.write_text(f"#!{sys.executable}\n{HOOK_SOURCE.read_text()}")
        hook.chmod(0o755)
    return hooks


def own_address(request: Request) -> str:
    """The address this connection reached the forge on (the socket's, never the client's
    Host header: a pusher must not be able to point the hook at a server of its own)."""
    host, port = request.scope.get("server") or ("127.0.0.1", 80)
    shown = f"[{host}]" if ":" in str(host) else host
    return f"http://{shown}:{port}"


def push_env(state: ForgeState, base_url: str, pending: PendingPush) -> tuple[dict[str, str], str]:
    """The http-backend environment that routes every pushed ref through the hook, and the
    one-time key the hook's call carries (forget it with `forget`)."""
    key = secrets.token_urlsafe(24)
    with state.lock:
        state.extensions.setdefault(EXTENSION, {})[key] = pending
    env = {
        "GIT_CONFIG_COUNT": "2",
        "GIT_CONFIG_KEY_0": "core.hooksPath",
        "GIT_CONFIG_VALUE_0": str(_hooks_dir(state)),
        "GIT_CONFIG_KEY_1": "receive.procReceiveRefs",
        "GIT_CONFIG_VALUE_1": "refs/",
        "FORGE_PUSH_CHECK": f"{base_url.rstrip('/')}{CHECK_PATH}/{key}",
    }
    return env, key


def forget(state: ForgeState, key: str) -> None:
    with state.lock:
        state.extensions.get(EXTENSION, {}).pop(key, None)


# --- the hook's question --------------------------------------------------------------------


def _quarantine(repo: RepoRecord, given: Any) -> dict[str, str]:
    """The hook's object directories, kept only when they lie inside the repository."""
    root = repo.git.path.resolve()
    env: dict[str, str] = {}
    for name in QUARANTINE_VARS:
        value = given.get(name) if isinstance(given, dict) else None
        if not isinstance(value, str):
            continue
        paths = [Path(p).resolve() for p in value.split(":") if p]
        if paths and all(p.is_relative_to(root) for p in paths):
            env[name] = value
    return env


def _report(found: Violations, web: str) -> tuple[str, str]:
    """(stderr text, the ref's ng reason) as GitHub words a refused push."""
    if found.rules:
        lines = [
            f"error: GH013: Repository rule violations found for {found.ref}.",
            f"Review all repository rules at {web}/rules?ref={quote(found.ref, safe='')}",
            "",
        ]
        for message in found.rules:
            lines.append(f"- {message}")
            if message == MESSAGES["required_signatures"]:
                count = len(found.unsigned)
                lines += [f"  Found {count} violation{'s' if count != 1 else ''}:", ""]
                lines += [f"  {sha}" for sha in found.unsigned]
            lines.append("")
        return "\n".join(lines) + "\n", RULES_DECLINED
    lines = [f"error: GH006: Protected branch update failed for {found.ref}."]
    lines += [f"error: {message}" for message in found.protection]
    if PROTECTED["required_signatures"] in found.protection:
        lines += [f"error: {sha} is not signed" for sha in found.unsigned]
    return "\n".join(lines) + "\n", PROTECTION_DECLINED


def check_push(
    repo: RepoRecord, pending: PendingPush, commands: list[str], env: dict[str, str]
) -> dict[str, Any]:
    results: list[dict[str, str | None]] = []
    messages = ""
    for line in commands:
        parts = line.split()
        if len(parts) != 3 or not all(SHA_RE.match(sha) for sha in parts[:2]):
            results.append({"ref": parts[2] if len(parts) == 3 else line, "reason": "invalid"})
            continue
        old, new, ref = parts
        found = check_update(
            repo,
            ref,
            None if old == ZERO else old,
            None if new == ZERO else new,
            pending.role,
            via="push",
            env=env,
        )
        reason = None
        if found:
            text, reason = _report(found, pending.web)
            messages += text
        results.append({"ref": ref, "reason": reason})
    return {"results": results, "messages": messages}


async def push_check(request: Request) -> Response:
    state: ForgeState = request.app.state.forge
    with state.lock:
        pending = state.extensions.get(EXTENSION, {}).pop(request.path_params["key"], None)
    if pending is None:
        return json_response({"message": "Not Found"}, status=404)
    body = await request.json()
    owner, _, name = pending.repo.partition("/")
    repo = state.repo(owner, name)
    commands = body.get("commands") if isinstance(body, dict) else None
    if repo is None or not isinstance(commands, list):
        return json_response({"message": "Bad push check"}, status=422)
    env = _quarantine(repo, body.get("env"))
    answer = await run_in_threadpool(check_push, repo, pending, [str(c) for c in commands], env)
    return json_response(answer)


def routes(state: ForgeState) -> list[Route]:
    return [Route(f"{CHECK_PATH}/{{key}}", push_check, methods=["POST"])]
