"""The stdio front's cache of opening answers (`initialize` and the first `tools/list`):
where it lives, the key that names a file, and reading and writing one safely.

A key covers everything the two answers depend on: a fingerprint of the code (the stat of
every module of this package and of extra_tools.py, and the MCP libraries' installed
files), the command line, the non-secret configuration variables, and the client's
protocol version and capabilities. Nothing secret is part of a key or a file.

Stdlib only: the front imports it before anything heavy.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

CACHE_FORMAT = 1
HANDOFF_FD_VAR = "GITHUB_MCP_SECRETS_FD"  # the secrets hand-off's descriptor (not a secret)
# Configuration that can change what the server lists: its own variables and the
# library's. Names that look secret are left out of keys (their values never matter here).
KEY_ENV_PREFIXES = ("GITHUB_", "FASTMCP_", "MCP_")
SECRET_MARKERS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PAT", "CREDENTIAL")
# Messages that may come before the first tools/list without changing its answer.
OPENING = {"notifications/initialized", "logging/setLevel", "ping"}


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "github-mcp"


def code_fingerprint() -> str:
    """The stat (path, size, mtime) of every file whose change could change a listing."""
    digest = hashlib.sha256(f"format {CACHE_FORMAT} {sys.version}".encode())
    package = Path(__file__).resolve().parents[1]  # all of github_mcp
    roots = [package]
    for library in ("fastmcp", "mcp", "mcp_types", "pydantic"):
        spec = importlib.util.find_spec(library)
        if spec is not None and spec.submodule_search_locations:
            roots.append(Path(next(iter(spec.submodule_search_locations))))
    for root in roots:
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            for name in sorted(files):
                if name.endswith(".py"):
                    info = os.stat(os.path.join(folder, name))
                    digest.update(f"{folder}/{name} {info.st_size} {info.st_mtime_ns}\n".encode())
    extra = package.parent / "extra_tools.py"
    if extra.exists():
        info = extra.stat()
        digest.update(f"{extra} {info.st_size} {info.st_mtime_ns}".encode())
    return digest.hexdigest()


def _is_secret_name(name: str) -> bool:
    return any(marker in name.upper() for marker in SECRET_MARKERS)


def base_key(argv: list[str], environ: dict[str, str]) -> str:
    settings = sorted(
        (k, v)
        for k, v in environ.items()
        if k.startswith(KEY_ENV_PREFIXES) and k != HANDOFF_FD_VAR and not _is_secret_name(k)
    )
    dotenv = Path(".env")
    with contextlib.suppress(OSError):
        settings.append((".env", hashlib.sha256(dotenv.read_bytes()).hexdigest()))
    payload = json.dumps([code_fingerprint(), argv, os.getcwd(), settings])
    return hashlib.sha256(payload.encode()).hexdigest()


def session_key(base: str, init_params: dict[str, Any]) -> str:
    client = [init_params.get("protocolVersion"), init_params.get("capabilities") or {}]
    return hashlib.sha256((base + json.dumps(client, sort_keys=True)).encode()).hexdigest()


def trusted(path: Path) -> bool:
    """A cached answer is served only from a file and folder this user owns and no one
    else can write: a planted tool list would put words in the model's context."""
    for item in (path.parent, path):
        info = os.stat(item)
        if info.st_uid != os.getuid() or info.st_mode & 0o022:
            return False
    return True


def write_atomic(path: Path, data: bytes) -> None:
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
