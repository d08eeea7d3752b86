"""Whether this package runs from its source checkout, where the developer commands
(`docs`) have the files they rewrite, or from an installed copy, where they do not."""

from __future__ import annotations

import functools
import tomllib
from pathlib import Path

PROJECT = "github-mcp-controller"


@functools.cache
def source_checkout() -> Path | None:
    """The checkout's root (its pyproject.toml names this project and docs/ is beside
    it), or None when the package was installed (site-packages has neither)."""
    root = Path(__file__).resolve().parents[2]
    try:
        project = tomllib.loads((root / "pyproject.toml").read_text()).get("project", {})
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return root if project.get("name") == PROJECT and (root / "docs").is_dir() else None


def version() -> str:
    """The installed distribution's version, or the source tree's when run from a checkout."""
    from importlib import metadata

    try:
        return metadata.version(PROJECT)
    except metadata.PackageNotFoundError:
        from github_mcp.pipeline.runtime import VERSION

        return VERSION


NO_DOCS_HERE = (
    "github-mcp-controller: `docs` regenerates a source checkout's docs/ and is not part "
    "of the installed command; in a checkout run `python main.py docs`."
)
SANDBOX_NOTE = (
    "github-mcp-controller: no GitHub token is set, so this call runs against a fresh "
    "sandbox forge seeded with the demo repository (octo-org/demo-app). Set GITHUB_TOKEN "
    "to work on GitHub, or pass --sandbox-forge never."
)
