"""A forge with the demo's people (alice, bob, the private repository), an OAuth app, and
headless Chromium (Playwright driving Debian's /usr/bin/chromium) for the browser side."""

from __future__ import annotations

import base64
import hashlib
import os
import secrets
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlsplit

import httpx2
import pytest
from playwright.sync_api import Error as PlaywrightError

from github_mcp.serving.loopback import CHROMIUM_FLAGS
from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo_people, seed_demo_repo
from tests.shared_browser import chromium_path

# Never listened on: the browser's request there is observed and its URL kept.
CALLBACK = "http://127.0.0.1:48123/oauth/callback"


@dataclass
class People:
    forge: Forge
    passwords: dict[str, str]

    @property
    def url(self) -> str:
        assert self.forge.base_url is not None
        return self.forge.base_url


@pytest.fixture(scope="module")
def people() -> Iterator[People]:
    with Forge() as forge:
        seed_demo_repo(forge)
        passwords = seed_demo_people(forge)
        yield People(forge, passwords)


@pytest.fixture
def oauth_app(people: People) -> dict[str, Any]:
    return people.forge.register_oauth_app("Sandbox MCP", [CALLBACK])


def pkce_pair() -> tuple[str, str]:
    verifier = secrets.token_urlsafe(48)
    digest = hashlib.sha256(verifier.encode()).digest()
    return verifier, base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=chromium_path(), headless=True, args=list(CHROMIUM_FLAGS)
        )
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Outcome:
    redirect: str | None  # where the forge finally sent the browser back to the client
    page_text: str  # the text of the last forge page shown
    context: Any  # the browser context (its cookies are the forge session)

    def query(self) -> dict[str, str]:
        assert self.redirect is not None, f"no redirect; the page said: {self.page_text!r}"
        return {k: v[0] for k, v in parse_qs(urlsplit(self.redirect).query).items()}


def run_flow(
    browser: Any,
    forge_url: str,
    params: dict[str, str],
    login: str | None = None,
    password: str | None = None,
    *,
    decide: str | None = "authorize",
    context: Any = None,
) -> Outcome:
    """Open the authorize URL in Chromium, sign in if asked to, then click Authorize
    (decide="authorize") or Cancel ("cancel"), or nothing (None)."""
    context = context or browser.new_context()
    page = context.new_page()
    arrived: list[str] = []
    # Redirects are not routed by Playwright, but every hop is a request: keep the one to
    # the callback (nothing listens there, so the browser then shows its own error page).
    page.on(
        "request",
        lambda request: arrived.append(request.url) if request.url.startswith(CALLBACK) else None,
    )
    try:
        page.goto(f"{forge_url}/login/oauth/authorize?{urlencode(params)}")
    except PlaywrightError:
        if not arrived:  # only the hop to the (unserved) callback may fail
            raise
    if not arrived and page.locator("#login_field").count() and login is not None:
        page.fill("#login_field", login)
        page.fill("#password", password or "")
        page.click("button[name=commit]")
        page.wait_for_load_state()
    if not arrived and decide is not None and page.locator("#js-oauth-authorize-btn").count():
        button = "#js-oauth-authorize-btn" if decide == "authorize" else "#js-oauth-cancel-btn"
        page.click(button)
        page.wait_for_load_state()
    text = "" if arrived else page.inner_text("body")
    page.close()
    return Outcome(arrived[-1] if arrived else None, text, context)


def authorize_params(app: dict[str, Any], **extra: str) -> dict[str, str]:
    return {"client_id": app["client_id"], "redirect_uri": CALLBACK, "state": "st-42", **extra}


def exchange(
    forge_url: str, app: dict[str, Any], *, json_answer: bool = True, **fields: str
) -> dict[str, str]:
    """POST /login/oauth/access_token; the answer parsed from JSON or the form encoding."""
    data = {"client_id": app["client_id"], "client_secret": app["client_secret"], **fields}
    headers = {"Accept": "application/json"} if json_answer else {}
    answer = httpx2.post(f"{forge_url}/login/oauth/access_token", data=data, headers=headers)
    assert answer.status_code == 200, answer.text  # GitHub answers errors with 200 too
    if json_answer:
        return answer.json()
    return {k: v[0] for k, v in parse_qs(answer.text, keep_blank_values=True).items()}


def sign_in_token(
    browser: Any, people: People, app: dict[str, Any], login: str, scope: str = "repo read:org"
) -> str:
    """A token for login obtained the way a client does: browser sign-in, code, exchange."""
    verifier, challenge = pkce_pair()
    params = authorize_params(
        app, scope=scope, code_challenge=challenge, code_challenge_method="S256"
    )
    outcome = run_flow(browser, people.url, params, login, people.passwords[login])
    outcome.context.close()
    code = outcome.query()["code"]
    return exchange(people.url, app, code=code, code_verifier=verifier)["access_token"]


def api(forge_url: str, token: str | None) -> httpx2.Client:
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    return httpx2.Client(base_url=forge_url, headers=headers, timeout=30)


def git(tmp: Path, token: str, *args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    env = {
        **os.environ,
        "HOME": str(tmp),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Tester",
        "GIT_AUTHOR_EMAIL": "tester@example.com",
        "GIT_COMMITTER_NAME": "Tester",
        "GIT_COMMITTER_EMAIL": "tester@example.com",
    }
    return subprocess.run(
        ["git", "-c", f"http.extraHeader=Authorization: Basic {basic}", *args],
        cwd=cwd or tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
