"""The /status page, rendered by headless Chromium (Debian's `chromium` package, which
`make test` installs through tests/install_system_packages.sh). Without a working Chromium
these tests fail: they never skip."""

from __future__ import annotations

import shutil
import struct
import subprocess
import tempfile
import time
from html.parser import HTMLParser
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client

from github_mcp.kernel.principal import Principal
from github_mcp.serving.loopback import CHROMIUM_FLAGS, serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.conftest import call_tool, error_code

TOKEN = "status-page-bearer-0123456789"
REPO = "octo-org/status-demo"


def chromium(url: str, *extra: str) -> subprocess.CompletedProcess[str]:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        pytest.fail(
            "chromium is not installed: run `bash tests/install_system_packages.sh` as root"
        )
    with tempfile.TemporaryDirectory(prefix="chromium-profile-") as profile:
        proc = subprocess.run(
            [binary, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *extra, url],
            capture_output=True,
            text=True,
            timeout=120,
        )
    if proc.returncode != 0:
        pytest.fail(f"chromium exited {proc.returncode}: {proc.stderr[-2000:]}")
    return proc


def rendered_dom(url: str) -> str:
    dom = chromium(url, "--dump-dom").stdout
    if "<html" not in dom:
        pytest.fail(f"chromium rendered nothing for {url}")
    return dom


class Tables(HTMLParser):
    """Rows (as lists of cell text) of every table with an id, plus the page's text."""

    def __init__(self) -> None:
        super().__init__()
        self.tables: dict[str, list[list[str]]] = {}
        self.ids: dict[str, str] = {}
        self.text: list[str] = []
        self.tags: list[str] = []
        self._table: str | None = None
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._open_ids: list[tuple[str, str, int]] = []
        self._depth = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        attr = dict(attrs)
        self._depth += 1
        if attr.get("id"):
            self._open_ids.append((attr["id"] or "", tag, self._depth))
            self.ids[attr["id"] or ""] = ""
        if tag == "table" and attr.get("id"):
            self._table = attr["id"]
            self.tables[self._table] = []
        elif tag == "tr" and self._table:
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._table and self._row is not None:
            self.tables[self._table].append(self._row)
            self._row = None
        elif tag == "table":
            self._table = None
        if self._open_ids and self._open_ids[-1][2] == self._depth:
            self._open_ids.pop()
        self._depth -= 1

    def handle_data(self, data: str) -> None:
        self.text.append(data)
        if self._cell is not None:
            self._cell.append(data)
        for ident, _, _ in self._open_ids:
            self.ids[ident] += data


def parse(dom: str) -> Tables:
    parser = Tables()
    parser.feed(dom)
    return parser


serve = serve_in_thread


@pytest.fixture(scope="module")
def status_repo(forge):
    forge.seed_repo(REPO, {"README.md": "# status\n", "app.py": "print('hi')\n"})
    return REPO


async def _exercise(url: str, client_auth: str | None = None) -> None:
    """Reads, an error, a denied write, an approved write and a feature-branch write."""
    # An approval window is scoped to a stateful session: the legacy handshake.
    async with Client(url + "/mcp", auth=client_auth, mode="legacy") as client:
        for _ in range(3):
            assert not (await call_tool(client, "get_repository", {"full_name": REPO}))[0]
        assert not (await call_tool(client, "list_branches", {"full_name": REPO}))[0]
        is_error, payload = await call_tool(
            client, "get_file_contents", {"full_name": REPO, "path": "missing.txt"}
        )
        assert error_code(payload) == "not_found"
        args = {"full_name": REPO, "branch": "main", "from_ref": "main"}
        assert error_code((await call_tool(client, "create_branch", args))[1]) == (
            "write_not_allowed"
        )
        is_error, payload = await call_tool(
            client, "create_branch", {"full_name": REPO, "branch": "status/feature"}
        )
        assert not is_error, payload
        is_error, payload = await call_tool(client, "authorize_write_actions", {"approved": True})
        assert not is_error, payload


async def test_status_page_in_headless_chromium(make_runtime, status_repo, forge_token, tmp_path):
    rt = make_runtime(
        protected_branches="release/*", approval_ttl_seconds=900, approval_mode="tool"
    )
    with serve(build_http_app(rt)) as url:
        await _exercise(url)
        dom = rendered_dom(url + "/status")
        shot = tmp_path / "status.png"
        chromium(url + "/status", f"--screenshot={shot}", "--window-size=1280,1600")
        headers = httpx.get(url + "/status").headers

    page = parse(dom)
    text = " ".join(" ".join(page.text).split())
    assert "script" not in page.tags
    assert '<meta http-equiv="refresh" content="10">' in dom
    assert "script-src" not in headers["content-security-policy"]
    assert headers["cache-control"] == "no-store"

    # Uptime and version.
    assert "version 0.1.0" in page.ids["uptime"] and " up " in page.ids["uptime"]

    # Tools: calls, errors and percentiles per tool, busiest first.
    tools = {row[0]: row for row in page.tables["tools"][1:]}
    assert page.tables["tools"][0][:5] == ["tool", "calls", "errors", "p50 ms", "p95 ms"]
    assert tools["get_repository"][1:3] == ["3", "0"]
    assert float(tools["get_repository"][3]) >= 0 and float(tools["get_repository"][4]) >= 0
    assert tools["get_file_contents"][1:3] == ["1", "1"]
    assert tools["create_branch"][1:3] == ["2", "1"]
    assert page.tables["tools"][1][0] == "get_repository"
    assert page.ids["total-calls"] == str(sum(int(r[1]) for r in tools.values()))
    assert dom.count("<svg") >= len(tools) + 1 and "<polyline" in dom

    # Write gate: mode and approval state.
    gate = page.ids["gate"]
    assert "tool" in gate and "sessions start not approved" in gate
    # the exercising client closed its session, and its approval went with it
    assert "0 session(s) hold an approval now" in gate
    assert "release/*" in gate and "900 s" in gate and "1 allowed, 1 denied" in gate

    # GitHub rate limit with its reset time.
    remaining = rt.metrics.rate_limit["remaining"]
    reset = rt.metrics.rate_limit["reset"]
    ratelimit = page.ids["ratelimit"]
    assert f"{remaining} of {rt.metrics.rate_limit['limit']}" in ratelimit
    assert time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(reset)) in ratelimit

    # Cache hit ratio per namespace.
    cache = {row[0]: row for row in page.tables["cache"][1:]}
    assert cache and set(cache) == set(rt.metrics.cache_table())
    for namespace, row in cache.items():
        ratio = rt.metrics.cache_table()[namespace]["hit_ratio"]
        assert row[3].endswith(f"{ratio:.1%}")

    # Recent denials and the audit log.
    denials = page.tables["denials"][1:]
    assert len(denials) == 1
    assert denials[0][1:] == ["create_branch", f"{REPO}@main", "default_branch"]
    audit = page.tables["audit"][1:]
    assert [row[1] for row in audit] == ["create_branch"]
    assert audit[0][2:5] == [REPO, "status/feature", "ok"]
    assert forge_token not in dom and "Bearer" not in text

    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", png[16:24]) == (1280, 1600)


async def test_status_page_lists_at_most_twenty_audit_entries(make_runtime, status_repo):
    rt = make_runtime()
    for i in range(25):
        rt.audit.record(
            f"call{i:02d}",
            Principal("bearer-abcdef0123456789", "bearer"),
            "comment_on_issue",
            REPO,
            None,
            "ok",
            number=i,
        )
    with serve(build_http_app(rt)) as url:
        page = parse(rendered_dom(url + "/status"))
    audit = page.tables["audit"][1:]
    assert len(audit) == 20
    assert audit[0][-1] == "call24" and audit[-1][-1] == "call05"
    assert audit[0][5] == "#24"
    assert audit[0][6] == "bearer-abcdef0…"  # principals are shortened
    assert page.tables["denials"][1] == ["none"]


async def test_status_page_needs_the_bearer_token_off_loopback(make_runtime, status_repo):
    rt = make_runtime(auth_tokens=TOKEN, allowed_hosts="127.0.0.1", approval_mode="tool")
    with serve(build_http_app(rt, host="0.0.0.0")) as url:
        await _exercise(url, client_auth=TOKEN)
        # a browser gets the sign-in form (tests/test_status_sign_in.py signs in with it)
        form = rendered_dom(url + "/status")
        missing = httpx.get(url + "/status")
        wrong = httpx.get(url + "/status", headers={"Authorization": "Bearer nope"})
        ok = httpx.get(url + "/status", headers={"Authorization": f"Bearer {TOKEN}"})
        health = httpx.get(url + "/healthz")
    assert 'id="sign-in"' in form and "total-calls" not in form
    assert missing.status_code == wrong.status_code == 401
    assert "www-authenticate" not in missing.headers  # no Basic prompt
    assert ok.status_code == 200
    page = parse(ok.text)
    assert page.ids["total-calls"] == "8"
    assert TOKEN not in ok.text
    assert health.status_code == 200  # /healthz stays open for probes


def test_install_script_is_wired_into_make_test():
    root = Path(__file__).resolve().parent.parent
    makefile = (root / "Makefile").read_text()
    script = (root / "tests" / "install_system_packages.sh").read_text()
    assert "tests/install_system_packages.sh" in makefile.split("\ntest:")[1].split("\n\n")[0]
    assert "apt-get install -y" in script and "chromium" in script
    assert "/usr/bin/chromium" in script
