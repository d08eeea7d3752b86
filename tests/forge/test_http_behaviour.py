"""Cross-cutting HTTP behaviour: rate limits, ETags, pagination, errors, prefixes, latency."""

from __future__ import annotations

import time

RATE_HEADERS = (
    "x-ratelimit-limit",
    "x-ratelimit-remaining",
    "x-ratelimit-reset",
    "x-ratelimit-used",
    "x-ratelimit-resource",
)


def test_every_api_response_carries_rate_limit_headers(api):
    first = api.get("/repos/octocat/hello")
    second = api.get("/repos/octocat/nope")
    for response in (first, second):
        assert all(name in response.headers for name in RATE_HEADERS)
    assert first.headers["x-ratelimit-resource"] == "core"
    assert int(second.headers["x-ratelimit-remaining"]) == (
        int(first.headers["x-ratelimit-remaining"]) - 1
    )
    assert int(second.headers["x-ratelimit-used"]) == int(first.headers["x-ratelimit-used"]) + 1


def test_rate_limit_endpoint_reports_without_counting(api):
    before = api.get("/rate_limit").json()
    after = api.get("/rate_limit").json()
    assert before["resources"]["core"]["remaining"] == after["resources"]["core"]["remaining"]
    assert before["rate"] == before["resources"]["core"]
    assert after["resources"]["search"]["limit"] == 30


def test_search_counts_against_its_own_resource(api):
    response = api.get("/search/repositories", params={"q": "hello"})
    assert response.headers["x-ratelimit-resource"] == "search"
    assert response.headers["x-ratelimit-limit"] == "30"


def test_exhausted_primary_limit_answers_403_with_githubs_message(world, api):
    reset = int(time.time()) + 600
    world.forge.set_rate_limit(remaining=1, reset=reset)
    assert api.get("/repos/octocat/hello").status_code == 200  # the last one allowed
    blocked = api.get("/repos/octocat/hello")
    assert blocked.status_code == 403
    assert blocked.headers["x-ratelimit-remaining"] == "0"
    assert blocked.headers["x-ratelimit-reset"] == str(reset)
    assert blocked.json()["message"].startswith("API rate limit exceeded for user ID ")
    assert "rate-limits" in blocked.json()["documentation_url"]


def test_anonymous_limit_names_the_ip_address(world):
    world.forge.set_rate_limit(remaining=0)
    with world.client(anonymous=True) as anon:
        blocked = anon.get("/repos/octocat/hello")
    assert blocked.status_code == 403
    assert blocked.json()["message"].startswith("API rate limit exceeded for 127.0.0.1.")


def test_etag_revalidation_gives_304_and_does_not_count(api):
    first = api.get("/repos/octocat/hello")
    etag = first.headers["etag"]
    assert etag.startswith('W/"')
    again = api.get("/repos/octocat/hello", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.content == b""
    assert again.headers["etag"] == etag
    assert again.headers["x-ratelimit-remaining"] == first.headers["x-ratelimit-remaining"]
    changed = api.get("/repos/octocat/hello", headers={"If-None-Match": 'W/"stale"'})
    assert changed.status_code == 200
    assert int(changed.headers["x-ratelimit-remaining"]) == (
        int(first.headers["x-ratelimit-remaining"]) - 1
    )


def test_last_modified_revalidation(api):
    first = api.get("/repos/octocat/hello/commits/main")
    stamp = first.headers["last-modified"]
    again = api.get("/repos/octocat/hello/commits/main", headers={"If-Modified-Since": stamp})
    assert again.status_code == 304


def test_pagination_link_header_matches_githubs_format(world, api):
    world.forge.seed_repo(
        "octocat/many", {"a.txt": "a\n"}, branches={f"b{i:02d}": {"x": str(i)} for i in range(7)}
    )
    first = api.get("/repos/octocat/many/branches", params={"per_page": 3})
    assert [b["name"] for b in first.json()] == ["b00", "b01", "b02"]
    base = f"{world.forge.base_url}/repos/octocat/many/branches"
    assert first.headers["link"] == (
        f'<{base}?per_page=3&page=2>; rel="next", <{base}?per_page=3&page=3>; rel="last"'
    )
    middle = api.get("/repos/octocat/many/branches", params={"per_page": 3, "page": 2})
    assert middle.headers["link"] == (
        f'<{base}?per_page=3&page=1>; rel="prev", <{base}?per_page=3&page=3>; rel="next", '
        f'<{base}?per_page=3&page=3>; rel="last", <{base}?per_page=3&page=1>; rel="first"'
    )
    last = api.get("/repos/octocat/many/branches", params={"per_page": 3, "page": 3})
    assert [b["name"] for b in last.json()] == ["b06", "main"]
    assert 'rel="next"' not in last.headers["link"]
    single = api.get("/repos/octocat/many/branches")
    assert "link" not in single.headers and len(single.json()) == 8


def test_per_page_is_capped_at_100(world, api):
    world.forge.seed_repo(
        "octocat/wide", {"a": "a"}, branches={f"b{i:03d}": {"x": str(i)} for i in range(105)}
    )
    response = api.get("/repos/octocat/wide/branches", params={"per_page": 500})
    assert len(response.json()) == 100
    assert 'page=2>; rel="next"' in response.headers["link"]


def test_enterprise_prefix_serves_the_same_api(world, api):
    plain = api.get("/repos/octocat/hello").json()
    prefixed = api.get("/api/v3/repos/octocat/hello").json()
    assert prefixed["full_name"] == plain["full_name"]
    assert prefixed["url"] == f"{world.forge.base_url}/api/v3/repos/octocat/hello"
    assert plain["url"] == f"{world.forge.base_url}/repos/octocat/hello"


def test_unknown_paths_and_methods_get_githubs_404(api):
    for response in (api.get("/no/such/thing"), api.put("/user")):
        assert response.status_code == 404
        assert response.json() == {
            "message": "Not Found",
            "documentation_url": "https://docs.github.com/rest",
            "status": "404",
        }
        assert response.headers["content-type"] == "application/json; charset=utf-8"


def test_malformed_json_body_is_a_400(api):
    response = api.post(
        "/repos/octocat/hello/git/blobs",
        content=b"{not json",
        headers={"Content-Type": "application/json"},
    )
    assert response.status_code == 400
    assert response.json()["message"] == "Problems parsing JSON"


def test_global_latency_delays_every_request(world, api):
    api.get("/user")
    world.forge.set_latency(150)
    started = time.perf_counter()
    api.get("/user")
    assert time.perf_counter() - started >= 0.15


def test_request_log_records_and_clears(world, api):
    world.forge.clear_requests()
    api.get("/repos/octocat/hello", params={"x": "1"})
    api.get("/api/v3/user")
    entries = world.forge.requests()
    assert [(e["method"], e["path"], e["status"]) for e in entries] == [
        ("GET", "/repos/octocat/hello", 200),
        ("GET", "/api/v3/user", 200),
    ]
    assert entries[0]["query"] == "x=1"
    assert entries[0]["duration_ms"] >= 0 and entries[0]["ts"] <= time.time()
    world.forge.clear_requests()
    assert world.forge.requests() == []


def test_recorded_responses_hold_bodies(world, api):
    world.forge.clear_responses()
    api.get("/repos/octocat/hello")
    (record,) = world.forge.responses()
    assert record["status"] == 200
    assert record["body"]["full_name"] == "octocat/hello"
    assert record["content_type"].startswith("application/json")
