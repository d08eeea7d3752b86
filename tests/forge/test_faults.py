"""Fault injection: statuses N times, Retry-After, latency, dropped connections, phases."""

from __future__ import annotations

import hashlib
import time

import httpx2
import pytest


def _head(api, branch="main"):
    return api.get(f"/repos/octocat/hello/git/ref/heads/{branch}").json()["object"]["sha"]


def _child_commit(api, parent: str, message: str) -> str:
    tree = api.get(f"/repos/octocat/hello/git/commits/{parent}").json()["tree"]["sha"]
    body = {"message": message, "tree": tree, "parents": [parent]}
    return api.post("/repos/octocat/hello/git/commits", json=body).json()["sha"]


def test_status_fault_fires_n_times_then_expires(world, api):
    world.forge.add_fault(path=r"^/repos/octocat/hello$", method="GET", status=502, times=2)
    statuses = [api.get("/repos/octocat/hello").status_code for _ in range(3)]
    assert statuses == [502, 502, 200]
    assert world.forge.faults() == []


def test_fault_only_matches_its_method_and_path(world, api):
    world.forge.add_fault(path=r"/git/refs", method="PATCH", status=500, times=None)
    assert api.get("/repos/octocat/hello").status_code == 200
    assert api.get("/repos/octocat/hello/git/ref/heads/main").status_code == 200
    response = api.patch("/repos/octocat/hello/git/refs/heads/main", json={"sha": "0" * 40})
    assert response.status_code == 500
    assert response.json()["message"] == "Server Error"
    assert len(world.forge.faults()) == 1  # times=None: forever


def test_secondary_rate_limit_preset(world, api):
    world.forge.add_fault(path="/user", preset="secondary_rate_limit", status=429, retry_after=7)
    response = api.get("/user")
    assert response.status_code == 429
    assert response.headers["retry-after"] == "7"
    assert response.json()["message"].startswith("You have exceeded a secondary rate limit.")
    assert api.get("/user").status_code == 200


def test_secondary_rate_limit_defaults_to_403_with_retry_after(world, api):
    world.forge.add_fault(path="/user", preset="secondary_rate_limit")
    response = api.get("/user")
    assert response.status_code == 403
    assert response.headers["retry-after"] == "60"


def test_custom_body_and_message(world, api):
    world.forge.add_fault(path="/user", status=418, body={"message": "teapot", "x": 1})
    world.forge.add_fault(path="/user", status=503, body="down for maintenance")
    assert api.get("/user").json() == {"message": "teapot", "x": 1}
    assert api.get("/user").json()["message"] == "down for maintenance"


def test_latency_fault_delays_only_matching_requests(world, api):
    world.forge.add_fault(path="/user", latency_ms=300)
    started = time.perf_counter()
    assert api.get("/user").status_code == 200  # latency-only: the real answer, late
    slow = time.perf_counter() - started
    started = time.perf_counter()
    api.get("/user")
    fast = time.perf_counter() - started
    assert slow >= 0.3 > fast


def test_dropped_connection_is_a_transport_error_not_a_status(world, api):
    world.forge.add_fault(path="/user", drop_connection=True)
    with pytest.raises(httpx2.TransportError):
        api.get("/user")
    assert api.get("/user").status_code == 200
    logged = [e for e in world.forge.requests() if e["path"] == "/user"]
    assert logged[0]["dropped"] is True


def test_drop_before_means_no_side_effect(world, api):
    head = _head(api)
    new = _child_commit(api, head, "never applied")
    world.forge.add_fault(path=r"/git/refs/heads/main$", method="PATCH", drop_connection=True)
    with pytest.raises(httpx2.TransportError):
        api.patch("/repos/octocat/hello/git/refs/heads/main", json={"sha": new})
    assert _head(api) == head


def test_drop_after_means_the_update_happened_but_the_client_never_knew(world, api):
    head = _head(api)
    new = _child_commit(api, head, "applied, unseen")
    world.forge.add_fault(
        path=r"/git/refs/heads/main$", method="PATCH", drop_connection=True, phase="after"
    )
    with pytest.raises(httpx2.TransportError):
        api.patch("/repos/octocat/hello/git/refs/heads/main", json={"sha": new})
    assert _head(api) == new


def test_status_after_replaces_a_successful_answer(world, api):
    world.forge.add_fault(path=r"/git/blobs$", method="POST", status=500, phase="after")
    content = b"made anyway"
    sha = hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()  # noqa: S324
    assert api.get(f"/repos/octocat/hello/git/blobs/{sha}").status_code == 404
    response = api.post("/repos/octocat/hello/git/blobs", json={"content": content.decode()})
    assert response.status_code == 500
    assert api.get(f"/repos/octocat/hello/git/blobs/{sha}").status_code == 200


def test_faults_can_be_listed_removed_and_cleared(world):
    first = world.forge.add_fault(path="/a", status=500)
    world.forge.add_fault(path="/b", status=500)
    assert [f["id"] for f in world.forge.faults()] == [first, first + 1]
    assert world.forge.remove_fault(first) is True
    assert [f["path"] for f in world.forge.faults()] == ["/b"]
    world.forge.clear_faults()
    assert world.forge.faults() == []


def test_bad_fault_specs_are_refused(world):
    with pytest.raises(ValueError):
        world.forge.add_fault(path="(unclosed", status=500)
    with pytest.raises(ValueError):
        world.forge.add_fault(path="/x", phase="during")
    with pytest.raises(ValueError):
        world.forge.add_fault(path="/x", preset="no-such-preset")


def test_faults_apply_to_git_http_too(world):
    world.forge.add_fault(path=r"/info/refs$", status=503)
    response = httpx2.get(
        f"{world.forge.base_url}/octocat/hello.git/info/refs",
        params={"service": "git-upload-pack"},
    )
    assert response.status_code == 503
