"""The local MCP Apps host (views/host/, built on ext-apps' AppBridge) served next to the
server over loopback, and headless Chromium driving it.

The page's MCP client talks streamable HTTP to /mcp of the same server; the card runs in
a sandbox proxy on the other loopback name (another origin) under the CSP its resource
declares. Nothing comes from a CDN: the host is bundled here from the npm packages that
views/package-lock.json pins (fetched into .cache by fetch_views_deps.sh)."""

from __future__ import annotations

import atexit
import contextlib
import functools
import json
import shutil
import subprocess
import tempfile
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from github_mcp.pipeline.runtime import Runtime
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.shared_browser import fresh_context

ROOT = Path(__file__).resolve().parents[2]
HOST_FILES = {"index.html": "text/html", "sandbox.html": "text/html", "host.js": "text/javascript"}
CARD_FRAME = "#frame-box iframe"
HANG_MS = 180_000  # what a wait in the host may take before it counts as a hang


@functools.cache
def host_assets() -> Path:
    """Bundle the host page once per process, into a folder of its own (test workers
    build side by side), removed when the process ends."""
    modules = subprocess.run(
        ["bash", str(ROOT / "tests" / "apps" / "fetch_views_deps.sh")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    out = Path(tempfile.mkdtemp(prefix="github-mcp-card-host-"))
    atexit.register(shutil.rmtree, out, ignore_errors=True)
    subprocess.run(
        ["node", str(ROOT / "views" / "build.mjs"), "--modules", modules, "--host", str(out)],
        check=True,
        capture_output=True,
    )
    return out


class WithCardHost:
    """Serves the host page under /host/ (no credentials: it holds none), the server's
    app for everything else."""

    def __init__(self, app: Any, assets: Path) -> None:
        self.app = app
        self.assets = assets

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if not path.startswith("/host/"):
            await self.app(scope, receive, send)
            return
        name = path.removeprefix("/host/") or "index.html"
        kind = HOST_FILES.get(name)
        body = (self.assets / name).read_bytes() if kind else b"not found"
        headers = [(b"content-type", f"{kind or 'text/plain'}; charset=utf-8".encode())]
        await send(
            {"type": "http.response.start", "status": 200 if kind else 404, "headers": headers}
        )
        await send({"type": "http.response.body", "body": body})


@contextlib.contextmanager
def serve_with_host(rt: Runtime) -> Iterator[str]:
    with serve_in_thread(WithCardHost(build_http_app(rt), host_assets())) as url:
        yield url


@dataclass
class HostPage:
    page: Any
    url: str
    console: list[str] = field(default_factory=list)

    @property
    def card(self) -> Any:
        """The card's document: host page -> sandbox proxy -> the card itself."""
        return self.page.frame_locator(CARD_FRAME).frame_locator("iframe")

    async def show(self, tool: str, args: dict[str, Any]) -> dict[str, Any]:
        """The host calls `tool` as the model would and renders its card; returns the result."""
        result = await self.page.evaluate(
            "([tool, args]) => window.cardHost.show(tool, args)", [tool, args]
        )
        # bounds a hang only: a loaded machine may take long to start a card
        await self.card.locator("[data-ready]").first.wait_for(timeout=HANG_MS)
        return result

    async def log(self) -> dict[str, Any]:
        return await self.page.evaluate("() => JSON.parse(JSON.stringify(window.cardHost.log))")

    async def wait_for_calls(self, count: int) -> list[dict[str, Any]]:
        await self.page.wait_for_function(
            f"window.cardHost.log.results.length >= {count}", timeout=HANG_MS
        )
        return (await self.log())["calls"]

    async def set_theme(self, theme: str) -> None:
        await self.page.evaluate("(t) => window.cardHost.setTheme(t)", theme)

    async def settle(self) -> None:
        """Wait (bounded) until the host has sized the card's frame to the card's content:
        the view reports its size asynchronously after each render."""
        previous = None
        for _ in range(100):
            frame = self.page.frames[-1]
            inner = await frame.evaluate("() => document.documentElement.scrollHeight")
            outer = await self.page.evaluate(
                f"() => document.querySelector('{CARD_FRAME}').getBoundingClientRect().height"
            )
            now = (inner, outer)
            if abs(outer - inner) <= 4 and now == previous:
                return
            previous = now
            await self.page.wait_for_timeout(100)

    async def screenshot(self, path: Path) -> None:
        """The card's frame as the host shows it. The viewport grows to the whole frame
        first: Chromium paints a cross-origin frame only where the viewport is."""
        await self.settle()
        box = await self.page.locator(CARD_FRAME).bounding_box()
        height = int(box["y"] + box["height"]) + 20 if box else 900
        await self.page.set_viewport_size({"width": 860, "height": max(900, height)})
        await self.settle()
        await self.page.locator(CARD_FRAME).screenshot(path=str(path))
        assert path.stat().st_size > 1000, f"{path} is empty"

    def csp_violations(self) -> list[str]:
        return [line for line in self.console if "Content Security Policy" in line]


@contextlib.asynccontextmanager
async def open_host(url: str, token: str, theme: str = "light") -> AsyncIterator[HostPage]:
    # the worker's Chromium; this host page in a context of its own
    async with fresh_context(viewport={"width": 860, "height": 900}) as context:
        page = await context.new_page()
        host = HostPage(page, url)
        page.on("console", lambda m: host.console.append(f"{m.type}: {m.text}"))
        fragment = json.dumps(token)[1:-1]
        await page.goto(f"{url}/host/index.html#token={fragment}&theme={theme}")
        await page.evaluate("() => window.cardHost.ready.then(() => true)")
        yield host
