"""How the forge runs git: argument lists (never a shell string) and a fixed environment,
so the user's git config cannot change what the forge stores or reads."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from sandbox_forge.git.cache import FastGit

EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"
SHA_RE = re.compile(r"^[0-9a-f]{40}$")

BASE_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
    # Paths from API callers are literal; grep opts back in to glob magic explicitly.
    "GIT_LITERAL_PATHSPECS": "1",
}


class GitError(RuntimeError):
    def __init__(self, args: list[str], returncode: int, stderr: bytes):
        self.returncode = returncode
        self.stderr = stderr.decode("utf-8", "replace")
        super().__init__(f"git {' '.join(args[:3])} failed ({returncode}): {self.stderr.strip()}")


class GitRunner:
    """Runs git on one bare repository. Methods block: call them from worker threads."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.fast = FastGit(self.path, {**os.environ, **BASE_ENV})

    def close(self) -> None:
        """Stop the repository's cat-file process (the next read starts another)."""
        self.fast.reader.close()

    # --- plumbing -------------------------------------------------------------------------

    def run(
        self,
        *args: str,
        input: bytes | None = None,
        env: dict[str, str] | None = None,
        check: bool = True,
    ) -> bytes:
        proc = self._process(args, input, env)
        if check and proc.returncode != 0:
            raise GitError(list(args), proc.returncode, proc.stderr)
        return proc.stdout

    def run_code(self, *args: str, env: dict[str, str] | None = None) -> tuple[int, bytes]:
        """(exit code, stdout): for commands whose failures mean different things."""
        proc = self._process(args, None, env)
        return proc.returncode, proc.stdout

    def _process(
        self, args: tuple[str, ...], input: bytes | None, env: dict[str, str] | None
    ) -> subprocess.CompletedProcess[bytes]:
        full_env = {**os.environ, **BASE_ENV, **(env or {})}
        argv = ["git", f"--git-dir={self.path}", *args]
        return subprocess.run(argv, input=input, capture_output=True, env=full_env, check=False)

    def ok(self, *args: str) -> bool:
        return self._returncode(*args) == 0

    def _returncode(self, *args: str) -> int:
        full_env = {**os.environ, **BASE_ENV}
        argv = ["git", f"--git-dir={self.path}", *args]
        return subprocess.run(argv, capture_output=True, env=full_env, check=False).returncode
