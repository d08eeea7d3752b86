"""The server's own git: validated arguments, per-command credentials, a config it can trust.

- Arguments are lists, never a shell; refs and names are validated (_validate.py) before
  any process runs.
- Credentials reach only the git process that needs them, through a file that exists
  nowhere but as an open descriptor: a sealed memfd holding `http.<clone url>.extraHeader`
  (scoped to the repository's URL), inherited by git and named by `include.path` as
  `/proc/self/fd/N`. Neither the environment nor the command line of any process holds
  the secret (both are readable by same-uid processes through /proc), and nothing is
  written to disk: never `.git/config`, never a stored URL.
- A user command can write `.git/` (hooks, `core.fsmonitor`, `url.*.insteadOf`,
  `remote.origin.url`, filter drivers…), and the server's git runs with the token. So hooks
  and fsmonitor are switched off for every server git call, credential helpers are cleared,
  and `.git/config` is checked before each use: unknown keys are dropped and the remote URL
  is restored.
"""

from __future__ import annotations

import asyncio
import contextlib
import fcntl
import hashlib
import logging
import os
import re
import signal
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from github_mcp.kernel.errors import ErrorCode, GitHubMCPError
from github_mcp.monitoring import tracing
from github_mcp.services.workspace._gitfiles import (
    ALLOWED_BRANCH_KEY,
    ALLOWED_KEYS,
    atomic_write,
    git_dir_intact,
    read_nofollow,
    render_config,
)

log = logging.getLogger(__name__)

HEX_SHA = re.compile(r"^[0-9a-fA-F]{7,64}$")


@dataclass
class GitResult:
    rc: int
    stdout: str
    stderr: str


_AUTH_RE = re.compile(r"(authorization:\s*)\S+(\s+\S+)?|(x-access-token:)[^@\s]+", re.IGNORECASE)


def redact(text: str) -> str:
    return _AUTH_RE.sub(lambda m: (m.group(1) or m.group(3)) + "[redacted]", text)


def git_error(res: GitResult, action: str, *, network: bool) -> GitHubMCPError:
    err = res.stderr
    low = err.lower()
    tail = redact("\n".join(err.strip().splitlines()[-3:]))[-600:]
    if ("remote branch" in low and "not found" in low) or "couldn't find remote ref" in low:
        return GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{action}: the ref does not exist upstream",
            hint="check the branch/tag name, or create the branch first",
            reason="ref_not_found",
            git_stderr=tail,
        )
    if (
        "repository not found" in low
        or "does not appear to be a git repository" in low
        or ("not found" in low and "http" in low)
    ):
        return GitHubMCPError(
            ErrorCode.NOT_FOUND,
            f"{action}: repository not found",
            git_stderr=tail,
            hint=(
                "Check the owner/repo spelling; the repository must be visible to this "
                "server's token."
            ),
        )
    if "authentication failed" in low or "could not read username" in low or " 403" in low:
        return GitHubMCPError(
            ErrorCode.FORBIDDEN,
            f"{action}: the server's credentials were refused",
            hint="check the token's access to this repository",
            git_stderr=tail,
        )
    code = ErrorCode.UPSTREAM_ERROR if network else ErrorCode.INTERNAL
    return GitHubMCPError(
        code,
        f"{action} failed",
        git_stderr=tail,
        hint=(
            "Retry if it was a network failure; otherwise remove_workspace_clone and clone afresh."
        ),
    )


def credentials_memfd(auth_header: str, url: str) -> int:
    """A sealed, anonymous in-memory git config file holding the header for one URL."""
    text = render_config([(f"http.{url}.extraHeader", f"Authorization: {auth_header}")])
    fd = os.memfd_create("git-credentials", os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
    try:
        data = text.encode()
        while data:
            data = data[os.write(fd, data) :]
        seals = fcntl.F_SEAL_SEAL | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_WRITE
        fcntl.fcntl(fd, fcntl.F_ADD_SEALS, seals)
        os.lseek(fd, 0, os.SEEK_SET)
    except BaseException:
        os.close(fd)
        raise
    return fd


class GitRunner:
    """Runs the server's git commands with a fixed, minimal environment."""

    def __init__(
        self,
        *,
        home: Path,
        user_name: str,
        user_email: str,
        timeout_s: float,
    ) -> None:
        self.home = home
        self.timeout_s = timeout_s
        self._identity = {
            "GIT_AUTHOR_NAME": user_name,
            "GIT_AUTHOR_EMAIL": user_email,
            "GIT_COMMITTER_NAME": user_name,
            "GIT_COMMITTER_EMAIL": user_email,
        }
        self._hooks = home / "no-hooks"
        self._config_hash: dict[Path, str] = {}

    def prepare(self) -> None:
        self.home.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(self.home, 0o700)
        self._hooks.mkdir(exist_ok=True)
        (self.home / "gitconfig").touch()

    def env(self, *, credentials_fd: int | None = None) -> dict[str, str]:
        config = [
            ("safe.directory", "*"),
            ("core.hooksPath", str(self._hooks)),
            ("core.fsmonitor", "false"),
            ("credential.helper", ""),
            ("protocol.allow", "never"),
            ("protocol.https.allow", "always"),
            ("protocol.http.allow", "always"),
            ("protocol.file.allow", "always"),
            ("gc.auto", "0"),
            ("maintenance.auto", "false"),
            ("fetch.writeCommitGraph", "false"),
            ("advice.detachedHead", "false"),
            ("init.defaultBranch", "main"),
            ("http.sslVerify", "true"),
        ]
        if credentials_fd is not None:
            # The path is all the environment holds; the header is in the descriptor.
            config.append(("include.path", f"/proc/self/fd/{credentials_fd}"))
        env = {
            "PATH": os.environ.get("PATH", "/usr/local/bin:/usr/bin:/bin"),
            "HOME": str(self.home),
            "LANG": "C",
            "LC_ALL": "C",
            "GIT_CONFIG_GLOBAL": str(self.home / "gitconfig"),
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "/bin/false",
            "SSH_ASKPASS": "/bin/false",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_CONFIG_COUNT": str(len(config)),
            **self._identity,
        }
        for i, (key, value) in enumerate(config):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        return env

    async def __call__(self, args: list[str], **kw: Any) -> GitResult:
        """Run git (one trace span per process: the subcommand and its exit code)."""
        subcommand = next((a for a in args if not a.startswith("-")), "")
        with tracing.span(f"git {subcommand}", **{"process.command": "git"}) as current:
            result = await self._run(args, **kw)
            tracing.annotate(current, **{"process.exit_code": result.rc})
            return result

    async def _run(
        self,
        args: list[str],
        *,
        cwd: Path | None,
        auth_header: str | None = None,
        url: str | None = None,
        timeout_s: float | None = None,
        extra_env: dict[str, str] | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> GitResult:
        creds_fd = credentials_memfd(auth_header, url) if auth_header and url else None
        env = self.env(credentials_fd=creds_fd)
        if extra_env:
            env.update(extra_env)
        try:
            proc = await asyncio.create_subprocess_exec(
                "git",
                *args,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
                pass_fds=() if creds_fd is None else (creds_fd,),
            )
        finally:
            if creds_fd is not None:
                os.close(creds_fd)  # git (and its helpers) hold their own copy

        async def read_err() -> bytes:
            assert proc.stderr is not None
            if on_stderr is None:
                return await proc.stderr.read()
            buf = bytearray()
            while chunk := await proc.stderr.read(4096):
                buf += chunk
                last = re.split(rb"[\r\n]", bytes(buf[-400:]).rstrip(b"\r\n"))[-1]
                on_stderr(last.decode(errors="replace"))
            return bytes(buf)

        try:
            async with asyncio.timeout(timeout_s or self.timeout_s):
                assert proc.stdout is not None
                out, err = await asyncio.gather(proc.stdout.read(), read_err())
                rc = await proc.wait()
        except TimeoutError as exc:
            self._kill(proc)
            await proc.wait()
            raise GitHubMCPError(
                ErrorCode.TIMEOUT, f"git {args[0]} timed out", hint="retry later"
            ) from exc
        except BaseException:
            self._kill(proc)
            raise
        return GitResult(rc, out.decode(errors="replace"), err.decode(errors="replace"))

    @staticmethod
    def _kill(proc: asyncio.subprocess.Process) -> None:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)

    async def ok(
        self,
        args: list[str],
        *,
        cwd: Path | None,
        action: str,
        auth_header: str | None = None,
        url: str | None = None,
        network: bool = False,
        extra_env: dict[str, str] | None = None,
        on_stderr: Callable[[str], None] | None = None,
    ) -> str:
        res = await self(
            args,
            cwd=cwd,
            auth_header=auth_header,
            url=url,
            extra_env=extra_env,
            on_stderr=on_stderr,
        )
        if res.rc != 0:
            raise git_error(res, action, network=network)
        return res.stdout

    async def sanitise(self, repo: Path, expected_url: str) -> None:
        """Make `.git/config` safe for a git that holds credentials."""
        if not git_dir_intact(repo):
            raise GitHubMCPError(
                ErrorCode.CONFLICT,
                "the workspace's .git directory was replaced",
                hint="re-create the workspace (ensure_workspace_clone with reset=true)",
            )
        cfg = repo / ".git" / "config"
        raw = read_nofollow(cfg, 1 << 20)
        digest = hashlib.sha256(raw).hexdigest() if raw is not None else ""
        if raw is not None and self._config_hash.get(repo) == digest:
            return
        entries: list[tuple[str, str]] = []
        if raw is not None:
            res = await self(["config", "--file", str(cfg), "--list", "-z"], cwd=repo)
            if res.rc == 0:
                for item in res.stdout.split("\0"):
                    if item:
                        key, _, value = item.partition("\n")
                        entries.append((key, value))
        forced = {
            "remote.origin.url": expected_url,
            "remote.origin.promisor": "true",
            "remote.origin.partialclonefilter": "blob:none",
        }
        kept = [
            (k, v)
            for k, v in entries
            if (k in ALLOWED_KEYS or ALLOWED_BRANCH_KEY.match(k)) and k not in forced
        ]
        dropped = sorted({k for k, _v in entries} - {k for k, _v in kept} - set(forced))
        wrong = [k for k, v in forced.items() if [val for key, val in entries if key == k] != [v]]
        if raw is None or dropped or wrong:
            if dropped or raw is None:
                log.warning("workspace %s: rewrote .git/config, dropped %s", repo, dropped)
            if not any(k == "core.repositoryformatversion" for k, _v in kept):
                kept.insert(0, ("core.repositoryformatversion", "1"))
            kept.extend(forced.items())
            atomic_write(cfg, render_config(kept))
            raw = read_nofollow(cfg, 1 << 20) or b""
            digest = hashlib.sha256(raw).hexdigest()
        self._config_hash[repo] = digest

    def forget(self, repo: Path) -> None:
        self._config_hash.pop(repo, None)
