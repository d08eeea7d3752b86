"""Secrets out of the server's own environment, before it serves anything.

`/proc/<pid>/environ` shows a process's environment as it was at exec time, and any
process of the same uid may read it; editing `os.environ` does not change it. So at
start-up `serve` re-executes itself with the secret variables removed, and hands their
values to the new image through an inherited, anonymous, sealed memory file (a memfd:
never on disk, never in an environment or a command line). The new process reads it,
closes it, and builds its Settings from the values directly, so the secrets are not put
back into any environment a child process could inherit either.

Which variables are secret is read from the Settings class itself: every `SecretStr`
field, under each of its environment names (GITHUB_TOKEN, GITHUB_PAT,
GITHUB_APP_PRIVATE_KEY, GITHUB_MCP_AUTH_TOKENS, OAuth client secrets…).
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import typing
from typing import Any

from pydantic import AliasChoices, SecretStr

from github_mcp.config import Settings

# Names the descriptor in the re-executed process; the value is a number, not a secret.
HANDOFF_FD_VAR = "GITHUB_MCP_SECRETS_FD"


def _is_secret(annotation: Any) -> bool:
    if annotation is SecretStr:
        return True
    return any(_is_secret(arg) for arg in typing.get_args(annotation))


def secret_env_names() -> dict[str, list[str]]:
    """Settings field name -> its environment variable names, in priority order."""
    out: dict[str, list[str]] = {}
    for name, field in Settings.model_fields.items():
        if not _is_secret(field.annotation):
            continue
        alias = field.validation_alias
        if isinstance(alias, AliasChoices):
            names = [a for a in alias.choices if isinstance(a, str)]
        elif isinstance(alias, str):
            names = [alias]
        else:
            names = [name.upper()]
        out[name] = names
    return out


def _collect(environ: dict[str, str]) -> tuple[dict[str, str], set[str]]:
    """Secret values by field name (first alias set wins, as in Settings), and every
    secret variable name present."""
    values: dict[str, str] = {}
    present: set[str] = set()
    lowered = {k.lower(): k for k in environ}
    for field, names in secret_env_names().items():
        for env_name in names:
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


def _receive(fd_text: str) -> dict[str, SecretStr]:
    fd = int(fd_text)
    try:
        with os.fdopen(fd, "rb", closefd=False) as stream:
            raw = stream.read()
    finally:
        os.close(fd)
    data = json.loads(raw.decode())
    return {name: SecretStr(value) for name, value in data.items() if isinstance(value, str)}


def take_secrets(*, reexec: bool) -> dict[str, SecretStr]:
    """Call first thing in `serve`. Returns Settings overrides holding the secrets.

    - In the re-executed process: read and close the hand-off descriptor.
    - With secrets in the environment and `reexec`: re-execute this process without them
      (does not return).
    - Otherwise (nothing to move, or an in-process caller that must not be replaced):
      return the values found, after dropping them from `os.environ` so that no child
      inherits them. (/proc/self/environ keeps them in that case: only the re-exec clears it.)
    """
    handed = os.environ.pop(HANDOFF_FD_VAR, None)
    if handed is not None:
        return _receive(handed)
    values, present = _collect(dict(os.environ))
    if not present:
        return {}
    if reexec:
        clean = {k: v for k, v in os.environ.items() if k not in present}
        fd = _memfd_with(json.dumps(values).encode())
        clean[HANDOFF_FD_VAR] = str(fd)
        sys.stdout.flush()
        sys.stderr.flush()
        os.execve(sys.executable, list(sys.orig_argv), clean)  # noqa: S606 - argv as given
    for key in present:
        os.environ.pop(key, None)
    return {name: SecretStr(value) for name, value in values.items()}
