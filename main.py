"""Entry point in a checkout: `python main.py serve|sandbox|check|tools|docs|call`, and `app`
for `uvicorn main:app` (streamable HTTP with the settings from the environment).

The installed `github-mcp-controller` script runs the same `github_mcp.cli.entry.main`; this
file is not part of the package.
"""

from __future__ import annotations

import sys

from github_mcp.cli.entry import main


def __getattr__(name: str) -> object:
    """`app` is made on first use: `serve` re-executes itself (the secrets hand-off) and
    should import as little as it can before it does."""
    if name != "app":
        raise AttributeError(name)
    from github_mcp.serving.lazy_app import LazyApp

    globals()["app"] = made = LazyApp()
    return made


if __name__ == "__main__":
    sys.exit(main())
