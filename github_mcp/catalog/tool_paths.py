"""Hosted URLs that choose a tool view, as the official GitHub server's endpoint has them:

    /mcp/readonly                the default toolsets, read tools only
    /mcp/x/<toolset>             one toolset (`all` for every toolset)
    /mcp/x/<toolset>/readonly    the same, read tools only

Each is served by the one MCP endpoint at /mcp: the path becomes the `X-MCP-Toolsets` and
`X-MCP-Readonly` headers that tool_catalog.py reads (the path's choice replaces a header of
the same kind; a read-only header still applies). An unknown toolset is a 404.
"""

from __future__ import annotations

from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from github_mcp.config import TOOLSETS

MCP_PATH = "/mcp"


def parse(path: str) -> tuple[str | None, bool] | None:
    """(toolset or None, read-only) for a view path; None for any other path."""
    if not path.startswith(MCP_PATH + "/"):
        return None
    parts = [p for p in path[len(MCP_PATH) :].split("/") if p]
    if parts == ["readonly"]:
        return None, True
    if len(parts) in (2, 3) and parts[0] == "x" and parts[2:] in ([], ["readonly"]):
        return parts[1], len(parts) == 3
    return None


class ToolViewPaths:
    """ASGI middleware: a view path is served as /mcp with the headers it stands for."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        view = parse(scope.get("path", "")) if scope["type"] == "http" else None
        if view is None:
            await self.app(scope, receive, send)
            return
        toolset, read_only = view
        if toolset is not None and toolset != "all" and toolset not in TOOLSETS:
            answer = JSONResponse(
                {"error": f"unknown toolset {toolset!r}; known: all, {', '.join(TOOLSETS)}"},
                status_code=404,
            )
            await answer(scope, receive, send)
            return
        headers = list(scope["headers"])
        if toolset is not None:
            headers = [(k, v) for k, v in headers if k.lower() != b"x-mcp-toolsets"]
            headers.append((b"x-mcp-toolsets", toolset.encode()))
        if read_only:
            headers = [(k, v) for k, v in headers if k.lower() != b"x-mcp-readonly"]
            headers.append((b"x-mcp-readonly", b"true"))
        path = MCP_PATH
        await self.app(
            {**scope, "path": path, "raw_path": path.encode(), "headers": headers}, receive, send
        )
