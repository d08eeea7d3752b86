"""Less common or destructive tools, registered with the same @tool decorator.

This is also the place operators add their own tools: declare them with
`github_mcp.registry.tool`, naming the toolset and, for writes, the target.
"""

from __future__ import annotations
