"""/status sign-in in bearer mode, in Chromium (Playwright): a form that takes the token
replaces the HTTP Basic prompt; the session cookie is HttpOnly, SameSite=Strict, scoped to
/status and Secure over HTTPS; sign-in and sign-out need the form's CSRF token.

STATUS_SCREENSHOT=docs/status-page.png saves the signed-in page there (the README's
picture); otherwise it goes to a temporary file."""

from __future__ import annotations

import os
from pathlib import Path

import httpx2 as httpx
import pytest
from fastmcp import Client

from github_mcp.serving.loopback import serve_in_thread
from github_mcp.serving.server import build_http_app
from github_mcp.status.auth import CSRF_COOKIE, SESSION_COOKIE
from tests.conftest import call_tool
from tests.shared_browser import fresh_context

TOKEN = "status-sign-in-token-0123456789"
REPO = "octo-org/status-sign-in"


@pytest.fixture
def served(make_runtime, forge):
    if forge.state.repo(*REPO.split("/")) is None:
        forge.seed_repo(REPO, {"README.md": "# s\n"})
    rt = make_runtime(auth_tokens=TOKEN)
    with serve_in_thread(build_http_app(rt)) as url:
        yield url


async def _some_calls(url: str) -> None:
    async with Client(url + "/mcp", auth=TOKEN) as client:
        await call_tool(client, "get_repository", {"full_name": REPO})
        await call_tool(client, "list_branches", {"full_name": REPO})
        await call_tool(client, "get_file_contents", {"full_name": REPO, "path": "README.md"})
        await call_tool(client, "create_issue", {"full_name": REPO, "title": "gated"})


async def test_a_browser_signs_in_with_the_token_and_out_again(served, tmp_path):
    await _some_calls(served)
    shot = Path(os.environ.get("STATUS_SCREENSHOT") or tmp_path / "status.png")
    async with fresh_context(viewport={"width": 1280, "height": 1300}) as context:
        page = await context.new_page()
        first = await page.goto(served + "/status")
        assert first is not None and first.status == 401  # the form, not a Basic prompt
        assert "www-authenticate" not in first.headers
        await page.fill("#token", "not-the-token")
        await page.click("#submit")
        assert "not valid" in (await page.text_content("#error") or "")
        assert SESSION_COOKIE not in {c["name"] for c in await context.cookies()}

        await page.fill("#token", TOKEN)
        await page.click("#submit")
        await page.wait_for_selector("#total-calls")
        assert int(await page.text_content("#total-calls") or 0) >= 2
        assert TOKEN not in await page.content()
        (cookie,) = [c for c in await context.cookies() if c["name"] == SESSION_COOKIE]
        assert cookie["httpOnly"] and cookie["sameSite"] == "Strict"
        # the whole site's: the approval pages take the same sign-in
        assert cookie["path"] == "/" and cookie["secure"] is False  # plain http
        assert TOKEN not in cookie["value"]
        await page.screenshot(path=str(shot), full_page=True)
        for width in (1280, 360):  # the sign-out button sits inside the header, at its right
            await page.set_viewport_size({"width": width, "height": 900})
            header = await page.locator("header").bounding_box()
            button = await page.locator("#sign-out button").bounding_box()
            title = await page.locator("header h1").bounding_box()
            assert header and button and title
            assert (
                header["x"] <= button["x"]
                and button["x"] + button["width"] <= header["x"] + header["width"]
            )
            assert (
                header["y"] <= button["y"]
                and button["y"] + button["height"] <= header["y"] + header["height"]
            )
            assert (
                button["x"] >= title["x"] + title["width"]
                or button["y"] >= title["y"] + title["height"]
            )

        async with page.expect_navigation():
            await page.click("#sign-out button")
        await page.wait_for_selector("#sign-in")
        assert SESSION_COOKIE not in {c["name"] for c in await context.cookies()}
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def _form(http: httpx.Client, url: str) -> str:
    page = http.get(url + "/status")
    assert page.status_code == 401 and 'id="sign-in"' in page.text
    return http.cookies[CSRF_COOKIE]


def test_sign_in_needs_the_forms_csrf_token_and_refuses_cross_site_posts(served):
    with httpx.Client() as http:
        csrf = _form(http, served)
        cross = http.post(
            served + "/status/login", data={"csrf": csrf, "token": TOKEN},
            headers={"Sec-Fetch-Site": "cross-site"},
        )  # fmt: skip
        assert cross.status_code == 403
        forged = http.post(served + "/status/login", data={"csrf": "guess", "token": TOKEN})
        assert forged.status_code == 403
        assert SESSION_COOKIE not in http.cookies
    with httpx.Client() as http:  # no CSRF cookie at all (a form posted from elsewhere)
        bare = http.post(served + "/status/login", data={"csrf": csrf, "token": TOKEN})
        assert bare.status_code == 403 and SESSION_COOKIE not in http.cookies


def test_a_forged_or_basic_credential_does_not_open_the_page(served):
    import base64

    basic = base64.b64encode(f"operator:{TOKEN}".encode()).decode()
    assert (
        httpx.get(served + "/status", headers={"Authorization": f"Basic {basic}"}).status_code
        == 401
    )
    forged = httpx.get(
        served + "/status", cookies={SESSION_COOKIE: "bearer-0000000000000000|9999999999|00"}
    )
    assert forged.status_code == 401 and 'id="sign-in"' in forged.text
    bearer = httpx.get(served + "/status", headers={"Authorization": f"Bearer {TOKEN}"})
    assert bearer.status_code == 200 and 'id="total-calls"' in bearer.text  # scripts


def test_the_session_cookie_is_secure_over_https(served):
    with httpx.Client() as http:
        csrf = _form(http, served)
        answer = http.post(
            served + "/status/login", data={"csrf": csrf, "token": TOKEN},
            headers={"X-Forwarded-Proto": "https"},
        )  # fmt: skip
    assert answer.status_code == 303
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"{SESSION_COOKIE}=")
    for attribute in ("HttpOnly", "SameSite=strict", "Path=/status", "Secure"):
        assert attribute.lower() in cookie.lower(), cookie
