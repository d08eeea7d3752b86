"""`make apps-preview` serves the demo forge, the server and the local host together: the
link it prints opens a host that renders a card."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys

from tests.apps.host import open_host
from tests.conftest import DEMO_REPO, ROOT


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


async def test_the_preview_prints_a_link_to_a_working_host():
    port = _free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    preview = subprocess.Popen(
        [sys.executable, "-m", "tests.apps.preview", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert preview.stderr is not None
        link = None
        for line in preview.stderr:
            found = re.search(r"Open:\s+(http://\S+)", line)
            if found:
                link = found.group(1)
                break
        assert link, "the preview printed no link"
        base, token = re.fullmatch(
            r"(http://127\.0\.0\.1:\d+)/host/index\.html#token=([^&]+)&open=1", link
        ).groups()  # type: ignore[union-attr]
        async with open_host(base, token) as host:
            result = await host.show("get_pr_overview", {"pr": f"{DEMO_REPO}#1"})
            title = await host.card.locator("h1.title").inner_text()
            assert title == result["structuredContent"]["title"] == "Add cart and inventory modules"
            # the default tool list, as make run serves it: the card's buttons work there
            offered = await host.page.locator("#tool option").all_inner_texts()
            assert "get_pr_overview" in offered and "get_workflow_run_overview" not in offered
            assert await host.card.locator("#rerun, #request-review, #merge").count() == 3
    finally:
        preview.terminate()
        preview.wait(timeout=30)
