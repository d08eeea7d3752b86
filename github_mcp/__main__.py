"""`python -m github_mcp …`: the same entry point as the `github-mcp-controller` script."""

import sys

from github_mcp.cli.entry import main

sys.exit(main())
