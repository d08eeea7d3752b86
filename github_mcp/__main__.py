"""`python -m github_mcp …`: the same entry point as the `github-mcp-controller` script."""

import sys

from github_mcp.entry import main

sys.exit(main())
