"""Entry point: the CLI (serve, sandbox, check, tools, docs, call) and `app` for uvicorn.

`uvicorn main:app` serves streamable HTTP with the settings from the environment.
"""

from __future__ import annotations

import sys

from github_mcp.stdio_front import start_if_serving_stdio

# Before the heavy imports: a stdio client gets its first answers from the disk cache.
if __name__ == "__main__":
    start_if_serving_stdio(sys.argv[1:])

import extra_tools  # noqa: F401 - registers the extra tools
from github_mcp.cli import cli
from github_mcp.lazy_app import LazyApp

app = LazyApp()

if __name__ == "__main__":
    sys.exit(cli())
