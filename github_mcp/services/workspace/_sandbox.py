"""What a user command may see: a scrubbed environment, an identity, and an optional bwrap jail."""

from __future__ import annotations

import logging
import os
import pwd
import re
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

from github_mcp.errors import ErrorCode, GitHubMCPError
from github_mcp.services.workspace._procs import Identity

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


def resolve_identity(run_as_user: str | None, *, cgroups_available: bool) -> Identity | None:
    """Who user commands run as.

    "auto": as the server's own user, unless the server is root and no cgroup can cap the
    process count; then as `nobody`, so that RLIMIT_NPROC applies. None: never switch.
    A name: always that user (the server must be root).
    """
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
        return None
    if os.geteuid() != 0:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            "switching the workspace user needs a server running as root",
            hint="unset run_as_user",
        )
    return Identity(pw.pw_uid, pw.pw_gid, run_as_user)


_SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")


def find_bwrap(bwrap_path: str) -> str:
    found = shutil.which(bwrap_path)
    if not found:
        raise GitHubMCPError(
            ErrorCode.INTERNAL,
            "the bwrap sandbox is configured but bubblewrap is not installed",
            hint="install it (Debian/Ubuntu: apt-get install bubblewrap) or set the "
            "workspace sandbox to none",
        )
    return found


def bwrap_argv(
    bwrap: str,
    *,
    workspace_dir: Path,
    cwd: Path,
    allow_network: bool,
    ro_binds: Sequence[str] = (),
) -> list[str]:
    """bwrap options: read-only system, writable workspace, own pid/ipc/uts (and net) namespaces."""
    argv = [bwrap, "--die-with-parent", "--new-session", "--unshare-pid", "--unshare-ipc"]
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
