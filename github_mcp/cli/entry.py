"""The one entry point: the `github-mcp-controller` console script, `python -m github_mcp`
and the checkout's `main.py` all run `main()`.

Only the stdlib stdio front is imported before it has started (a stdio client gets its
first answers from the disk cache while the rest imports); everything else is lazy.
"""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["-V"]):
        print(f"github-mcp-controller {version()}")
        return 0
    if argv is None:
        from github_mcp.serving.stdio_front import start_if_serving_stdio

        start_if_serving_stdio(args)
    from github_mcp.cli.main import cli

    return cli(argv)


def version() -> str:
    """The installed distribution's version, or the source tree's when run from a checkout."""
    from importlib import metadata

    try:
        return metadata.version("github-mcp-controller")
    except metadata.PackageNotFoundError:
        from github_mcp.pipeline.runtime import VERSION

        return VERSION
