"""The reference server (npm @modelcontextprotocol/server-github, pinned) run against the
sandbox forge: fetched like the tests' npm packages (tests/fetch_npm_package.sh, Node from
Debian's `nodejs` when missing), started with `node --import` of a small module that
rewrites the base of its `fetch` calls from GitHub's API to the forge.

The reference reads a branch with `GET git/refs/heads/<name>`, a legacy route GitHub still
answers but its OpenAPI description leaves out; the forge serves only the described twin,
`GET git/ref/heads/<name>` (same answer for an exact name), so the module maps one to the
other for GETs.
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
  if (!url.startsWith(api)) return original(input, init);
  let path = url.slice(api.length);
  if ((init?.method ?? "GET").toUpperCase() === "GET") {
    path = path.replace(new RegExp("^(/repos/[^/]+/[^/]+/git)/refs/(heads|tags)/"), "$1/ref/$2/");
  }
  return original(base + path, init);
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
