"""Secrets out of the server's own environment, before it imports or serves anything.

`/proc/<pid>/environ` shows a process's environment as it was at exec time, and any
process of the same uid may read it; editing `os.environ` does not change it. So `serve`
re-executes itself with the secret variables removed, and hands their values to the new
image through an inherited, anonymous, sealed memory file (a memfd: never on disk, never
in an environment or a command line). The new process reads it, closes it, and builds its
Settings from the values directly, so the secrets are not put back into any environment a
child process could inherit either.

The re-exec happens first thing in the entry point (`hand_off`), so only the new image
pays for importing the server: this module is stdlib only. Which variables are secret is
therefore listed here (`SECRET_ENV_NAMES`); a test holds it equal to the Settings class's
`SecretStr` fields and their environment names, and `take_secrets`, run once Settings is
imported, re-executes again should a name ever be missing (correct, only slower).
"""

from __future__ import annotations

import fcntl
import os
import sys

# Not typing's: the process that re-executes imports only what it uses (typing, json and
# re would be ~10 ms of a start, paid twice); type checkers read any TYPE_CHECKING as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, NoReturn

    from pydantic import SecretStr

# Names the descriptor in the re-executed process; the value is a number, not a secret.
HANDOFF_FD_VAR = "GITHUB_MCP_SECRETS_FD"
# Settings field -> its environment names, in priority order (first one set wins).
SECRET_ENV_NAMES: dict[str, tuple[str, ...]] = {
    "github_token": ("GITHUB_TOKEN", "GITHUB_PAT"),
    "github_app_private_key": ("GITHUB_APP_PRIVATE_KEY",),
    "auth_tokens": ("GITHUB_MCP_AUTH_TOKENS",),
    "oauth_client_secret": ("GITHUB_OAUTH_CLIENT_SECRET",),
    "oauth_signing_key": ("GITHUB_MCP_OAUTH_SIGNING_KEY",),
    "state_url": ("GITHUB_MCP_STATE_URL",),
    "tasks_url": ("GITHUB_MCP_TASKS_URL",),
}

_received: dict[str, str] | None = None  # what the hand-off descriptor held, read once


def _is_secret(annotation: Any) -> bool:
    import typing

    from pydantic import SecretStr

    if annotation is SecretStr:
        return True
    return any(_is_secret(arg) for arg in typing.get_args(annotation))


def secret_env_names() -> dict[str, tuple[str, ...]]:
    """The same mapping, read from the Settings class itself (imports pydantic)."""
    from pydantic import AliasChoices

    from github_mcp.config import Settings

    out: dict[str, tuple[str, ...]] = {}
    for name, field in Settings.model_fields.items():
        if not _is_secret(field.annotation):
            continue
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            out[name] = tuple(a for a in alias.choices if isinstance(a, str))
        elif isinstance(alias, str):
            out[name] = (alias,)
        else:
            out[name] = (name.upper(),)
    return out


def _collect(
    environ: Mapping[str, str], names: Mapping[str, tuple[str, ...]]
) -> tuple[dict[str, str], set[str]]:
    """Secret values by field name (first alias set wins, as in Settings), and every
    secret variable name present."""
    values: dict[str, str] = {}
    present: set[str] = set()
    lowered = {k.lower(): k for k in environ}
    for field, env_names in names.items():
        for env_name in env_names:
            key = lowered.get(env_name.lower())  # pydantic-settings matches case-insensitively
            if key is None:
                continue
            present.add(key)
            values.setdefault(field, environ[key])
    return values, present


def _memfd_with(data: bytes) -> int:
    fd = os.memfd_create("github-mcp-secrets", os.MFD_ALLOW_SEALING)  # inheritable on exec
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
        os.lseek(fd, 0, os.SEEK_SET)
        os.set_inheritable(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _receive() -> dict[str, str]:
    """In the re-executed process: the handed values (the descriptor is read and closed
    on the first call, and its variable dropped)."""
    global _received
    if _received is None:
        _received = {}
        fd_text = os.environ.pop(HANDOFF_FD_VAR, None)
        if fd_text is not None:
            fd = int(fd_text)
            try:
                with os.fdopen(fd, "rb", closefd=False) as stream:
                    raw = stream.read()
            finally:
                os.close(fd)
            _received = _decoded(raw)
    return _received


# The hand-off's bytes: name NUL value NUL ..., as the OS keeps environment strings (which
# hold no NUL), so any value's bytes cross unchanged.
def _encoded(values: dict[str, str]) -> bytes:
    return b"\0".join(os.fsencode(part) for pair in values.items() for part in pair)


def _decoded(raw: bytes) -> dict[str, str]:
    parts = [os.fsdecode(part) for part in raw.split(b"\0")] if raw else []
    return dict(zip(parts[::2], parts[1::2], strict=True))


def _reexec_without(present: set[str], values: dict[str, str]) -> NoReturn:
    clean = {k: v for k, v in os.environ.items() if k not in present}
    clean[HANDOFF_FD_VAR] = str(_memfd_with(_encoded(values)))
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(sys.executable, list(sys.orig_argv), clean)  # noqa: S606 - argv as given


def hand_off() -> None:
    """Called by the entry point before any heavy import when it will `serve`: with a
    secret in the environment, re-execute without it (does not return)."""
    handed = _receive()
    values, present = _collect(os.environ, SECRET_ENV_NAMES)
    if present:
        _reexec_without(present, {**values, **handed})


def take_secrets(*, reexec: bool) -> dict[str, SecretStr]:
    """Called first thing in `serve`. Returns Settings overrides holding the secrets:
    those handed over by `hand_off`'s re-exec, and any still in the environment (checked
    against Settings itself). Those are moved by one more re-exec when `reexec` (the
    process's own entry), else dropped from `os.environ` so no child inherits them
    (/proc/self/environ keeps them in that case: only a re-exec clears it)."""
    from pydantic import SecretStr

    handed = _receive()
    values, present = _collect(os.environ, secret_env_names())
    if present and reexec:
        _reexec_without(present, {**values, **handed})
    for key in present:
        os.environ.pop(key, None)
    merged = {**values, **handed}
    return {name: SecretStr(value) for name, value in merged.items()}
