"""The demo's helpers that are not the session itself: the patch an assistant would write,
the human who approves on the approval page, and the /status screenshot."""

from __future__ import annotations

import difflib
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

from github_mcp.serving.loopback import CHROMIUM_FLAGS

BEARER = "demo-bearer-token-0123456789"


def capture_status_page(html_text: str, screenshot: Path) -> None:
    """Render the status page's HTML in headless Chromium and save a PNG."""
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise RuntimeError(
            "chromium is not installed (tests/install_system_packages.sh installs it)"
        )
    with tempfile.TemporaryDirectory(prefix="demo-status-") as tmp:
        page = Path(tmp) / "status.html"
        page.write_text(html_text, encoding="utf-8")
        subprocess.run(
            [
                binary,
                *CHROMIUM_FLAGS,
                f"--user-data-dir={tmp}/profile",
                f"--screenshot={screenshot.resolve()}",
                "--window-size=1280,1360",
                page.as_uri(),
            ],
            check=True,
            capture_output=True,
            timeout=120,
        )


def diff(path: str, old: str, new: str) -> str:
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True),
            new.splitlines(keepends=True),
            fromfile=f"a/{path}",
            tofile=f"b/{path}",
        )
    )


def added_multiply(calc: str, init: str, tests: str) -> dict[str, str]:
    """The change an assistant would make for 'Add a multiply function'."""
    new_calc = calc.rstrip("\n") + "\n\n\ndef multiply(a: float, b: float) -> float:\n"
    new_calc += "    return a * b\n"
    new_init = init.replace("import add, divide", "import add, divide, multiply")
    new_tests = tests.replace("import add, divide", "import add, divide, multiply")
    new_tests = new_tests.rstrip("\n") + "\n\n\ndef test_multiply():\n"
    new_tests += "    assert multiply(6, 7) == 42\n"
    return {
        "src/demo_app/calc.py": diff("src/demo_app/calc.py", calc, new_calc),
        "src/demo_app/__init__.py": diff("src/demo_app/__init__.py", init, new_init),
        "tests/test_calc.py": diff("tests/test_calc.py", tests, new_tests),
    }


def tree_summary(p: dict[str, Any]) -> str:
    reasons: dict[str, int] = {}
    for item in p["excluded"]:
        reasons[item["reason"]] = reasons.get(item["reason"], 0) + 1
    by_reason = ", ".join(f"{k} {v}" for k, v in sorted(reasons.items()))
    paths = ", ".join(f["path"] for f in p["file_tree"][:6])
    return (
        f"{len(p['file_tree'])} files at {p['resolved_sha'][:10]} ({p['ref']}); "
        f"{len(p['excluded'])} excluded ({by_reason})\n{paths}, …"
    )


def approve_on_page(link: str) -> None:
    """What the human does in a browser: open the approval page, sign in on the form it
    sends a browser to (this principal's token, once), and press Approve."""
    import re

    import httpx2 as httpx

    origin = link.split("/approvals/", 1)[0]
    page_url, _, fragment = link.partition("#")
    form = {"Origin": origin, "Sec-Fetch-Site": "same-origin"}
    with httpx.Client(timeout=10, follow_redirects=True) as browser:
        # the key is in the link's fragment; the page's script posts it, as done here
        key = fragment.partition("key=")[2]
        page = browser.post(page_url + "/open", data={"key": key}, headers={"Origin": origin})
        if page.url.path == "/status":  # not signed in yet: the sign-in form, then back
            sign_in = dict(re.findall(r'name="(csrf|next)" value="([^"]*)"', page.text))
            page = browser.post(
                origin + "/status/login", data={**sign_in, "token": BEARER}, headers=form
            )
        page.raise_for_status()
        fields = dict(re.findall(r'name="(key|csrf)" value="([^"]*)"', page.text))
        answer = browser.post(page_url, data={**fields, "choice": "approve"}, headers=form)
        answer.raise_for_status()
