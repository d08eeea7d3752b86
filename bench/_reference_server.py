"""The reference server (npm @modelcontextprotocol/server-github, pinned) run against the
sandbox forge: fetched like the tests' npm packages (tests/fetch_npm_package.sh, Node from
Debian's `nodejs` when missing), started with `node --import` of a small module that
rewrites the base of its `fetch` calls from GitHub's API to the forge.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "@modelcontextprotocol/server-github"
VERSION = "2025.4.8"
ENTRY = ROOT / ".cache/npm-server-github/node_modules" / PACKAGE / "dist/index.js"
REDIRECT = ROOT / ".cache/npm-server-github/redirect.mjs"
# The module node loads first: every fetch to GitHub's API goes to the forge instead.
REDIRECT_SOURCE = """\
const base = process.env.BENCH_FORGE_URL;
const original = globalThis.fetch;
globalThis.fetch = (input, init) => {
  const url = typeof input === "string" ? input : String(input.url ?? input);
  const api = "https://api.github.com";
  return original(url.startsWith(api) ? base + url.slice(api.length) : input, init);
};
"""


def ensure() -> None:
    """Fetch the pinned package (and write the redirect module) when missing."""
    subprocess.run(
        ["bash", str(ROOT / "tests/fetch_npm_package.sh"), "npm-server-github", PACKAGE,
         VERSION, "dist/index.js"],
        check=True,
    )  # fmt: skip
    if not REDIRECT.is_file() or REDIRECT.read_text() != REDIRECT_SOURCE:
        REDIRECT.write_text(REDIRECT_SOURCE)


def node_command(forge_url: str, token: str = "") -> tuple[list[str], dict[str, str]]:
    """The command and environment that serve the reference server over stdio."""
    ensure()
    env = {
        "PATH": os.environ["PATH"],
        "HOME": os.environ.get("HOME", "/tmp"),
        "BENCH_FORGE_URL": forge_url.rstrip("/"),
        "GITHUB_PERSONAL_ACCESS_TOKEN": token,
    }
    return ["node", "--import", REDIRECT.as_uri(), str(ENTRY)], env
