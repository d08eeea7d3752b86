"""Actions job logs in the runner's format, and the short-lived signed URLs that log
downloads redirect to (like GitHub's blob storage links: no credentials needed)."""

from __future__ import annotations

import hashlib
import hmac
import time
from datetime import UTC, datetime

from sandbox_forge.kernel.urls import Urls
from sandbox_forge.stores.lookups import now
from sandbox_forge.stores.state import ForgeState

LOG_PREFIX = "/_sandbox/blobs/actions"
LOG_URL_TTL = 600


def _stamp(ts: float) -> str:
    moment = datetime.fromtimestamp(ts, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond * 10:07d}Z"


def job_log(
    steps: list[tuple[str, str, str, int]], started: float | None = None, job_name: str = "build"
) -> str:
    """A job log in the runner's format from (title, command, output, exit code) steps:
    a timestamp on every line, ##[group] per step, ##[error] for a failing exit code."""
    clock = started if started is not None else now()
    out: list[str] = []

    def emit(text: str) -> None:
        nonlocal clock
        clock += 0.0013
        out.append(f"{_stamp(clock)} {text}")

    emit("Current runner version: '2.321.0'")
    emit("##[group]Runner Image")
    emit("Image: ubuntu-24.04")
    emit("##[endgroup]")
    emit(f"Complete job name: {job_name}")
    for title, command, output, code in steps:
        emit(f"##[group]{title}")
        for line in command.splitlines():
            emit(line)
        emit("##[endgroup]")
        for line in output.rstrip("\n").splitlines():
            emit(line)
        if code:
            emit(f"##[error]Process completed with exit code {code}.")
            break
    emit("Post job cleanup.")
    emit("Cleaning up orphan processes")
    return "\ufeff" + "\n".join(out) + "\n"


def _signature(state: ForgeState, path: str, expires: int) -> str:
    key = state.admin_token.encode()
    return hmac.new(key, f"{path}:{expires}".encode(), hashlib.sha256).hexdigest()


def signed_url(state: ForgeState, urls: Urls, path: str) -> str:
    expires = int(time.time()) + LOG_URL_TTL
    return f"{urls.web}{path}?expires={expires}&sig={_signature(state, path, expires)}"


def signature_ok(state: ForgeState, path: str, expires: int, given: str) -> bool:
    """Whether a signed URL's `expires` and `sig` are valid and unexpired."""
    return expires >= time.time() and hmac.compare_digest(given, _signature(state, path, expires))
