"""One headless Chromium per test worker, shared by the browser tests.

Launching Chromium costs far more than opening a context in a running one, and the suite
visits pages about sixty times. Every visit still gets a fresh browser context of its own
(its own cookies, storage and HTTP credentials), so no test sees another's session. The
browser is launched on first use, relaunched if it died, and closed when the session ends
(tests/conftest.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
from collections.abc import AsyncIterator
from typing import Any

import pytest

from github_mcp.serving.loopback import CHROMIUM_FLAGS

# per event loop: (playwright, browser); a playwright object lives on the loop that made it
_running: dict[asyncio.AbstractEventLoop, tuple[Any, Any]] = {}
_locks: dict[asyncio.AbstractEventLoop, asyncio.Lock] = {}


def chromium_path() -> str:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:  # a missing browser fails the suite, never skips it
        pytest.fail("chromium is not installed: run `bash tests/install_system_packages.sh`")
    return binary


async def shared_chromium() -> Any:
    """The worker's running Chromium (launched now if there is none or it died)."""
    loop = asyncio.get_running_loop()
    async with _locks.setdefault(loop, asyncio.Lock()):
        running = _running.get(loop)
        if running is not None and running[1].is_connected():
            return running[1]
        if running is not None:  # it died: let its driver go before a new one starts
            with contextlib.suppress(Exception):
                await running[0].stop()
        from playwright.async_api import async_playwright

        playwright = await async_playwright().start()
        try:
            browser = await playwright.chromium.launch(
                executable_path=chromium_path(), headless=True, args=list(CHROMIUM_FLAGS)
            )
        except BaseException:
            await playwright.stop()
            raise
        _running[loop] = (playwright, browser)
        return browser


@contextlib.asynccontextmanager
async def fresh_context(**options: Any) -> AsyncIterator[Any]:
    """A new browser context in the shared Chromium, closed on the way out."""
    context = await (await shared_chromium()).new_context(**options)
    try:
        yield context
    finally:
        with contextlib.suppress(Exception):
            await context.close()


async def close_shared_chromium() -> None:
    """Close this loop's browser and its driver (session end)."""
    running = _running.pop(asyncio.get_running_loop(), None)
    if running is None:
        return
    playwright, browser = running
    try:
        await browser.close()
    finally:
        await playwright.stop()
