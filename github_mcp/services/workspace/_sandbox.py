"""What a user command may see: a scrubbed environment, an identity, and the bwrap jail."""

from __future__ import annotations

import functools
import logging
import os
import pwd
import re
import shutil
import stat
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._child_setup import Identity

log = logging.getLogger(__name__)

DEFAULT_ENV_ALLOWLIST = (
    "PATH",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "TERM",
    "TZ",
    "COLUMNS",
    "NO_COLOR",
    "FORCE_COLOR",
    "SOURCE_DATE_EPOCH",
)

# Even an allow-listed name is dropped when it looks like a secret.
_SECRET_NAME = re.compile(
    r"^(GITHUB|GH|MCP|GITHUB_MCP|AWS|AZURE|GOOGLE|GCP|OPENAI|ANTHROPIC|NPM|PYPI|TWINE|DOCKER)_"
    r"|TOKEN|SECRET|PASSW|CREDENTIAL|PRIVATE|_KEY$|_KEY_|^KEY$|AUTHORIZATION|COOKIE|SESSION",
    re.IGNORECASE,
)


def is_secret_name(name: str) -> bool:
    return bool(_SECRET_NAME.search(name))


def scrub_env(
    source: Mapping[str, str], allowlist: Sequence[str], extra: Mapping[str, str]
) -> dict[str, str]:
    env = {k: source[k] for k in allowlist if k in source and not is_secret_name(k)}
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.setdefault("LANG", "C.UTF-8")
    env.update(extra)
    return env


def resolve_identity(
    run_as_user: str | None, *, cgroups_available: bool, sandboxed: bool = False
) -> Identity | None:
    """Who user commands run as (outside any user namespace).

    Sandboxed (bwrap): a root server never runs commands as root; "auto" (and None) drop
    to `nobody`, a name to that user. An unprivileged server runs them under its own uid,
    which bwrap maps to an unprivileged uid in the command's user namespace.
    Not sandboxed: "auto" keeps the server's user, unless the server is root and no cgroup
    can cap the process count; then `nobody`, so that RLIMIT_NPROC applies. None: never
    switch. A name: always that user (the server must be root).
    """
    if sandboxed and os.geteuid() == 0 and run_as_user in (None, "auto"):
        run_as_user = "nobody"
    if run_as_user is None:
        return None
    if run_as_user == "auto":
        if os.geteuid() != 0 or cgroups_available:
            return None
        try:
            pw = pwd.getpwnam("nobody")
        except KeyError:
            log.warning("root without cgroups and no 'nobody' user: process count not capped")
            return None
        return Identity(pw.pw_uid, pw.pw_gid, "nobody")
    try:
        pw = pwd.getpwnam(run_as_user)
    except KeyError as exc:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            f"workspace user {run_as_user!r} does not exist",
            hint="create the user or change the workspace run_as_user setting",
        ) from exc
    if pw.pw_uid == os.geteuid():
        if sandboxed and pw.pw_uid == 0:
            raise unavailable("workspace commands may not run as root", hint=_NOT_ROOT_HINT)
        return None
    if os.geteuid() != 0:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            "switching the workspace user needs a server running as root",
            hint="unset run_as_user",
        )
    return Identity(pw.pw_uid, pw.pw_gid, run_as_user)


_NOT_ROOT_HINT = "name an unprivileged workspace user"
SANDBOX_NONE_HINT = (
    "or, for a single trusted user only, set GITHUB_MCP_WORKSPACE_SANDBOX=none (unsafe: "
    "commands then run with the server's own access)"
)


def unavailable(message: str, *, hint: str, **details: Any) -> GitHubMCPError:
    """The workspace tools cannot run safely on this host: the envelope names the fix."""
    return GitHubMCPError(ErrorCode.WORKSPACE_UNAVAILABLE, message, hint=hint, **details)


_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


# The uid and gid a sandboxed command sees (its user namespace maps them to an
# unprivileged uid outside: `nobody` under a root server, else the server's own uid).
SANDBOX_UID = 1000
SANDBOX_GID = 1000


def find_bwrap(bwrap_path: str) -> str:
    found = shutil.which(bwrap_path)
    if not found:
        raise unavailable(
            "the workspace sandbox (bubblewrap) is not installed",
            hint="install it (Debian/Ubuntu: apt-get install bubblewrap; Fedora: dnf install "
            f"bubblewrap; Alpine: apk add bubblewrap), {SANDBOX_NONE_HINT}",
        )
    return found


@functools.cache
def bwrap_supports(bwrap: str, option: str) -> bool:
    """Whether this bubblewrap knows an option (`--disable-userns` came in 0.8)."""
    try:
        res = subprocess.run(
            [bwrap, "--help"], capture_output=True, text=True, timeout=10, check=False
        )
    except (OSError, subprocess.SubprocessError):
        return False
    return option in res.stdout


def bwrap_argv(
    bwrap: str,
    *,
    workspace_dir: Path,
    cwd: Path,
    allow_network: bool,
    ro_binds: Sequence[str] = (),
    disable_userns: bool = False,
) -> list[str]:
    """The jail: a new user, pid, ipc, uts, cgroup (and network) namespace, an unprivileged
    uid, read-only system directories, and only this workspace mounted, writable.

    Nothing else of the host is visible: the root is an empty tmpfs, so the server's code,
    its configuration, the audit log and other workspaces are simply not there; /proc is
    the new pid namespace's (the server's processes do not exist in it). `--die-with-parent`
    and the pid namespace end every process of the command with it.
    """
    argv = [bwrap, "--unshare-user", "--uid", str(SANDBOX_UID), "--gid", str(SANDBOX_GID)]
    if disable_userns:
        argv.append("--disable-userns")  # no nested user namespaces: less kernel surface
    argv += ["--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc"]
    argv += ["--unshare-uts", "--hostname", "workspace", "--unshare-cgroup-try"]
    if not allow_network:
        argv.append("--unshare-net")
    for d in _SYSTEM_DIRS:
        p = Path(d)
        if p.is_symlink():
            argv += ["--symlink", os.readlink(p), d]
        elif p.is_dir():
            argv += ["--ro-bind", d, d]
    for extra in ro_binds:
        argv += ["--ro-bind-try", extra, extra]
    # Fresh, private /tmp and /var/tmp inside the jail (not the host's).
    argv += ["--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp", "--tmpfs", "/var/tmp"]  # noqa: S108
    argv += ["--tmpfs", "/run"]
    resolv = Path("/etc/resolv.conf")
    if allow_network and resolv.is_symlink():
        target = str(resolv.resolve())
        argv += ["--ro-bind-try", target, target]
    argv += ["--bind", str(workspace_dir), str(workspace_dir), "--chdir", str(cwd), "--"]
    return argv


def untraversable(root: Path) -> Path | None:
    """The first directory on the way to root that other users cannot enter."""
    for d in (root, *root.parents):
        if not d.stat().st_mode & stat.S_IXOTH:
            return d
    return None
