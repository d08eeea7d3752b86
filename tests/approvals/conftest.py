"""Approval-page fixtures: the server over real HTTP in bearer mode (two principals), an
injectable clock for 'approve for N minutes', forge branch heads as evidence, and a
headless Chromium that plays the human on the approval page."""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass, field
from typing import Any

import httpx2 as httpx
import pytest
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport

from github_mcp.approvals.requests import PendingApprovals
from github_mcp.pipeline.runtime import Runtime
from github_mcp.policy.write_gate import WriteGate
from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from tests.shared_browser import fresh_context

TOKEN_A = "approver-alpha-0123456789"
TOKEN_B = "approver-bravo-0123456789"
_repo_numbers = itertools.count(1)


class FakeClock:
    """time.monotonic for the gate, moved by the test (no sleeps)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


@dataclass
class Served:
    url: str
    rt: Runtime
    clock: FakeClock | None = None


@pytest.fixture
def approval_server(make_runtime):
    """A factory: the server over HTTP, bearer tokens A and B, `auto` mode by default."""

    @contextlib.contextmanager
    def start(clock: FakeClock | None = None, **settings: Any) -> Iterator[Served]:
        rt = make_runtime(auth_tokens=f"{TOKEN_A},{TOKEN_B}", **settings)
        if clock is not None:
            rt.gate = WriteGate(rt.settings, rt.metrics, rt.gate.default_branch, clock=clock)
            rt.pending = PendingApprovals(rt.gate, clock=clock)
        with serve_in_thread(build_http_app(rt)) as url:
            yield Served(url, rt, clock)

    return start


@pytest.fixture
def fresh_repo(forge):
    def make(files: dict[str, str] | None = None) -> str:
        name = f"octo-org/approvals-{next(_repo_numbers)}"
        forge.seed_repo(name, files or {"README.md": "# demo\nline two\n"})
        return name

    return make


def branch_head(forge: Any, full_name: str, branch: str = "main") -> str | None:
    """The branch head as the forge's REST API reports it."""
    admin = forge.create_token(login="octocat")
    response = httpx.get(
        f"{forge.base_url}/repos/{full_name}/git/ref/heads/{branch}",
        headers={"Authorization": f"Bearer {admin}"},
    )
    return response.json()["object"]["sha"] if response.status_code == 200 else None


def commit_parents(forge: Any, full_name: str, sha: str) -> list[str]:
    admin = forge.create_token(login="octocat")
    response = httpx.get(
        f"{forge.base_url}/repos/{full_name}/commits/{sha}",
        headers={"Authorization": f"Bearer {admin}"},
    )
    return [p["sha"] for p in response.json()["parents"]]


@contextlib.asynccontextmanager
async def http_client(url: str, token: str, **kwargs: Any) -> AsyncIterator[Client]:
    """A real MCP client over streamable HTTP on the handshake-era protocol (which has
    server-to-client requests, so elicitation can happen in the middle of a call)."""
    transport = StreamableHttpTransport(url + "/mcp", auth=token)
    async with Client(transport, mode="legacy", **kwargs) as client:
        yield client


@dataclass
class PageVisit:
    """What the human saw and did on the approval page."""

    status: int | None = None
    text: str = ""
    files: list[str] = field(default_factory=list)
    outcome: str | None = None
    outcome_status: int | None = None


async def visit_approval_page(
    link: str,
    choice: str | None,
    *,
    token: str | None = None,
    sign_in: tuple[str, str] | None = None,
) -> PageVisit:
    """Open `link` in headless Chromium as a human does and click `choice` (approve,
    approve-window, deny), or only look when `choice` is None. When the page sends the
    browser to /status's sign-in form, sign in there with the bearer `token` (and come
    back); when it sends it to the forge's GitHub sign-in, sign in as `sign_in`. A
    browser's HTTP Basic prompt is never answered: a page that asks for one fails here."""
    visit = PageVisit()
    # the worker's Chromium; this visit in a context of its own
    async with fresh_context() as context:
        page = await context.new_page()
        pages: list[Any] = []  # each document the browser landed on (not redirects)
        page.on("response", lambda r: _landed(page, r, pages))
        await page.goto(link)
        # the link's page posts the fragment's key, then shows the approval itself (or
        # the sign-in it needs first)
        await page.wait_for_selector("#files, #sign-in, #login_field, #outcome, p", timeout=120_000)
        await page.wait_for_load_state()
        if token is not None and await page.locator("form#sign-in").count():
            await page.fill("#token", token)
            async with page.expect_navigation():
                await page.click("#submit")
            await page.wait_for_load_state()
        if sign_in is not None:  # the page moves on to the forge's sign-in by itself
            with contextlib.suppress(Exception):
                await page.wait_for_selector("#login_field, #write", timeout=10_000)
        response = pages[-1] if pages else None
        if sign_in is not None and await page.locator("#login_field").count():
            await page.fill("#login_field", sign_in[0])
            await page.fill("#password", sign_in[1])
            async with page.expect_navigation():
                await page.click("button[name=commit]")
            if await page.locator("#js-oauth-authorize-btn").count():
                async with page.expect_navigation():
                    await page.click("#js-oauth-authorize-btn")
            response = None
        await page.wait_for_load_state()
        assert not [r for r in pages if "www-authenticate" in r.headers], "a Basic prompt"
        response = pages[-1] if pages and response is not None else response
        visit.status = response.status if response is not None else None
        visit.text = await page.inner_text("body")
        visit.files = [await item.inner_text() for item in await page.locator("#files li").all()]
        if choice is not None and await page.locator(f"#{choice}").count():
            async with page.expect_navigation() as navigation:
                await page.click(f"#{choice}")
            answer = await navigation.value
            visit.outcome_status = answer.status if answer is not None else None
            if await page.locator("#outcome").count():
                visit.outcome = await page.get_attribute("#outcome", "data-status")
    return visit


def _landed(page: Any, response: Any, pages: list[Any]) -> None:
    request = response.request
    if request.is_navigation_request() and request.frame == page.main_frame:
        if not 300 <= response.status < 400:
            pages.append(response)


# the OAuth-mode server factory (GitHub sign-in against the forge), shared with tests/oauth
from tests.oauth.conftest import oauth_server as oauth_server  # noqa: E402
