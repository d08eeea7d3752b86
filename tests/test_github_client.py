"""The GitHub client against the forge: retries, rate limits, ETags, App auth."""

from __future__ import annotations

import asyncio
import time

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from github_mcp.config import Settings
from github_mcp.kernel.errors import GitHubMCPError
from github_mcp.pipeline.runtime import Runtime
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, requests_matching

REPO_PATH = f"/repos/{DEMO_REPO}"


async def test_retries_502_then_succeeds(make_runtime, forge):
    rt = make_runtime()
    forge.clear_requests()
    forge.add_fault(method="GET", path="^/user$", status=502, times=2)
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "get_me")
    assert not is_error, payload
    assert payload["login"] == "octocat"
    statuses = [r["status"] for r in requests_matching(forge, "GET", "/user")]
    assert statuses == [502, 502, 200]


async def test_502_on_non_idempotent_post_is_not_retried(make_runtime, forge):
    rt = make_runtime()
    forge.clear_requests()
    forge.add_fault(method="POST", path="/git/refs$", status=502, times=1)
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(
            client, "create_branch", {"full_name": DEMO_REPO, "branch": "no-retry-post"}
        )
    assert is_error and error_code(payload) == "upstream_error"
    assert len(requests_matching(forge, "POST", "/git/refs")) == 1


async def test_secondary_rate_limit_honours_retry_after(make_runtime, forge):
    rt = make_runtime()
    forge.clear_requests()
    forge.add_fault(
        method="GET",
        path="^/user$",
        status=403,
        times=1,
        retry_after=1,
        body={"message": "You have exceeded a secondary rate limit."},
    )
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "get_me")
    assert not is_error, payload
    assert [r["status"] for r in requests_matching(forge, "GET", "/user")] == [403, 200]
    assert rt.metrics.snapshot()["github"]["retries_total"] == 1


async def test_retry_after_above_cap_returns_rate_limited(make_runtime, forge):
    rt = make_runtime(github_max_retry_wait=5)
    forge.clear_requests()
    forge.add_fault(method="GET", path="^/user$", status=429, times=1, retry_after=120)
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "get_me")
    assert error_code(payload) == "rate_limited"
    assert payload["error"]["retry_after"] == 120
    assert payload["error"]["retryable"] is True
    assert len(requests_matching(forge, "GET", "/user")) == 1


async def test_primary_rate_limit_fails_fast_with_reset(make_runtime, forge):
    rt = make_runtime()
    reset = int(time.time()) + 3600
    forge.set_rate_limit(remaining=0, reset=reset)
    forge.clear_requests()
    try:
        async with mcp_client(rt) as client:
            is_error, payload = await call_tool(client, "get_me")
    finally:
        forge.set_rate_limit(remaining=5000, reset=int(time.time()) + 3600)
    assert error_code(payload) == "rate_limited"
    assert payload["error"]["reset_at"] == reset
    assert 3500 <= payload["error"]["retry_after"] <= 3600
    assert "resets at" in payload["error"]["message"]
    assert len(requests_matching(forge, "GET", "/user")) == 1


async def test_etag_revalidation_answers_from_cache(make_runtime, forge):
    rt = make_runtime(cache_ttl_seconds=0)
    forge.clear_requests()
    first = await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    second = await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    assert first == second
    statuses = [r["status"] for r in forge.requests() if r["path"] == REPO_PATH]
    assert statuses == [200, 304]
    assert rt.metrics.cache_table()["etag"]["hits"] == 1


async def test_fresh_cache_makes_no_request_and_invalidation_refetches(make_runtime, forge):
    rt = make_runtime(cache_ttl_seconds=60)
    forge.clear_requests()
    await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    assert len([r for r in forge.requests() if r["path"] == REPO_PATH]) == 1
    assert rt.invalidate_repo(DEMO_REPO) >= 1
    await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    assert len([r for r in forge.requests() if r["path"] == REPO_PATH]) == 2


async def test_concurrent_misses_are_coalesced(make_runtime, forge):
    rt = make_runtime()
    forge.clear_requests()
    results = await asyncio.gather(
        *(rt.github.get_json(REPO_PATH, repo=DEMO_REPO) for _ in range(8))
    )
    assert all(r == results[0] for r in results)
    assert len([r for r in forge.requests() if r["path"] == REPO_PATH]) == 1


async def test_concurrency_cap_bounds_requests_in_flight(make_runtime, forge):
    rt = make_runtime(github_max_concurrency=2)
    forge.clear_requests()
    forge.add_fault(method="GET", path="^/rate_limit$", latency_ms=150)
    await asyncio.gather(*(rt.github.request_json("GET", "/rate_limit") for _ in range(6)))
    spans = sorted(
        (r["ts"], r["ts"] + r["duration_ms"] / 1000)
        for r in requests_matching(forge, "GET", "/rate_limit")
    )
    assert len(spans) == 6
    overlap = max(sum(1 for s, e in spans if s <= t < e) for t, _ in spans)
    assert overlap <= 2


async def test_link_pagination(make_runtime, forge):
    forge.seed_repo(
        "octo-org/many-branches",
        {"a": "a\n"},
        branches={f"b{i}": {"a": f"{i}\n"} for i in range(5)},
    )
    rt = make_runtime()
    seen: list[str] = []
    cursor = None
    pages = 0
    while True:
        page = await rt.github.paginate(
            "/repos/octo-org/many-branches/branches", limit=2, cursor=cursor
        )
        pages += 1
        seen += [b["name"] for b in page.items]
        cursor = page.next_cursor
        if not cursor:
            break
    assert pages == 3 and sorted(seen) == sorted(["main"] + [f"b{i}" for i in range(5)])
    everything = await rt.github.collect("/repos/octo-org/many-branches/branches")
    assert len(everything) == 6


async def test_enterprise_api_prefix(make_runtime, forge):
    rt = make_runtime(github_api_url=forge.base_url + "/api/v3")
    assert rt.settings.graphql_url == forge.base_url + "/api/graphql"
    assert rt.settings.web_base_url == forge.base_url
    data = await rt.github.get_json(REPO_PATH, repo=DEMO_REPO)
    assert data["full_name"] == DEMO_REPO
    public = Settings(github_api_url="https://api.github.com")
    assert public.web_base_url == "https://github.com"
    assert public.graphql_url == "https://api.github.com/graphql"
    ghe = Settings(github_api_url="https://ghe.example.com/api/v3/")
    assert ghe.web_base_url == "https://ghe.example.com"
    assert ghe.graphql_url == "https://ghe.example.com/api/graphql"


def _rsa_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


async def test_app_installation_token_is_cached_and_refreshed(make_settings, forge, tmp_path):
    private, public = _rsa_pair()
    forge.register_app("4242", public, "777", token_ttl_seconds=3600)
    settings = make_settings(
        github_token=None,
        github_app_id="4242",
        github_app_installation_id="777",
        github_app_private_key=private,
    )
    rt = Runtime.create(settings)
    assert rt.token_kind == "app"
    forge.clear_requests()
    await rt.github.get_json(REPO_PATH, repo=DEMO_REPO, ttl=0)
    await rt.github.request_json("GET", REPO_PATH)
    exchanges = requests_matching(forge, "POST", "/app/installations/777/access_tokens")
    assert len(exchanges) == 1
    # A token that expires within the refresh margin is replaced before use.
    forge.register_app("4243", public, "778", token_ttl_seconds=200)
    settings2 = make_settings(
        github_token=None,
        github_app_id="4243",
        github_app_installation_id="778",
        github_app_private_key=private,
    )
    rt2 = Runtime.create(settings2)
    forge.clear_requests()
    await rt2.github.request_json("GET", REPO_PATH)
    await rt2.github.request_json("GET", REPO_PATH)
    assert len(requests_matching(forge, "POST", "/app/installations/778/access_tokens")) == 2
    assert rt2.github.credentials.refreshes == 2
    await rt.aclose()
    await rt2.aclose()


async def test_bad_token_maps_to_forbidden(make_runtime):
    rt = make_runtime(github_token="ghp_" + "x" * 36)
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "get_me")
    assert error_code(payload) == "forbidden"
    assert "ghp_" not in str(payload)


async def test_upstream_error_text_is_redacted(make_runtime, forge, forge_token):
    rt = make_runtime()
    leak = f"boom {forge_token} Authorization: Bearer {forge_token}"
    forge.add_fault(method="GET", path="^/user$", status=400, times=1, body={"message": leak})
    async with mcp_client(rt) as client:
        is_error, payload = await call_tool(client, "get_me")
    text = str(payload)
    assert is_error and forge_token not in text and "Authorization: Bearer" not in text


async def test_internal_error_hides_exception_text(make_runtime, forge, forge_token):
    rt = make_runtime()
    # A 200 with a body missing required fields makes the handler raise KeyError.
    forge.add_fault(method="GET", path="^/user$", status=200, times=1, body={"secret": forge_token})
    async with mcp_client(rt) as client:
        result = await client.call_tool("get_me", {}, raise_on_error=False)
    assert result.is_error
    envelope = result.structured_content["error"]
    assert envelope["code"] == "internal" and envelope["call_id"]
    dumped = str(result.content) + str(result.structured_content)
    assert forge_token not in dumped and "KeyError" not in dumped and "login" not in dumped


async def test_network_error_is_upstream_error(make_settings):
    rt = Runtime.create(make_settings(github_api_url="http://127.0.0.1:9"), retry_base_delay=0.01)
    try:
        await rt.github.request_json("GET", "/user")
    except GitHubMCPError as exc:
        assert exc.code.value == "upstream_error" and exc.retryable
    else:
        raise AssertionError("expected an error")
    finally:
        await rt.aclose()
