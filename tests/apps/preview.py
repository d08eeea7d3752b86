"""`make apps-preview`: the demo forge, the server over loopback HTTP and the local MCP Apps
host, to click through the cards in a browser. Ctrl-C stops them.

    python -m tests.apps.preview [--port 8765]

The host page is bundled from the npm packages views/package-lock.json pins (so npm is
needed, unlike `make run`); links the cards open go to new browser tabs."""

from __future__ import annotations

import argparse
import secrets
import shutil
import socket
import sys
import tempfile
from pathlib import Path

import uvicorn

from github_mcp.config import Settings
from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.server import build_http_app
from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo
from tests.apps.host import WithCardHost, host_assets


class AnnouncingServer(uvicorn.Server):
    """Prints the link once the port answers: a link opened at once must work."""

    def __init__(self, config: uvicorn.Config, banner: str) -> None:
        super().__init__(config)
        self.banner = banner

    async def startup(self, sockets: list[socket.socket] | None = None) -> None:
        await super().startup(sockets)
        if self.started:
            print(self.banner, file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make apps-preview", description=__doc__)
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args(argv)
    assets = host_assets()
    scratch = Path(tempfile.mkdtemp(prefix="github-mcp-apps-preview-"))
    forge = Forge()
    try:
        forge.start()
        seed_demo(forge)
        token = secrets.token_urlsafe(24)
        settings = Settings(
            github_api_url=forge.base_url,
            github_token=forge.create_token(login="octocat"),
            auth_tokens=token,
            audit_log=scratch / "audit.jsonl",
            workspace_dir=scratch / "workspaces",
        )  # the default tool list, as `make run` serves it
        app = WithCardHost(build_http_app(Runtime.create(settings)), assets)
        base = f"http://127.0.0.1:{args.port}"
        banner = (
            "\nMCP Apps preview: the cards on the demo repository octo-org/demo-app\n"
            f"  Open:  {base}/host/index.html#token={token}&open=1\n"
            "  Pick a tool (get_pr_overview, get_failing_tests, get_pr_diff, ...), edit its\n"
            '  arguments (e.g. {"pr": "octo-org/demo-app#1"}) and press Call.\n'
            "  A write's approval page asks you to sign in once: with the token above.\n"
            "Press Ctrl-C to stop.\n"
        )
        config = uvicorn.Config(app, host="127.0.0.1", port=args.port, log_level="warning")
        AnnouncingServer(config, banner).run()
    finally:
        forge.stop()
        shutil.rmtree(scratch, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
