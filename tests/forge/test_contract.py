"""Every response the forge serves validates against GitHub's OpenAPI description.

One forge records every response while a scenario calls each endpoint, on its happy path
and its main errors; then each recorded body is validated for its operation and status.
If the description is missing, these tests fail (run tests/forge/fetch_openapi.sh).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Iterator
from pathlib import Path

import jwt
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from sandbox_forge import Forge

from . import contract
from .worlds import World, make_world

REPO = "/repos/octocat/hello"
EXPECTED_OPERATIONS = {
    "users/get-authenticated": {200, 401},
    "users/get-by-username": {200, 404},
    "rate-limit/get": {200},
    "repos/list-for-authenticated-user": {200},
    "repos/get": {200, 404},
    "repos/list-branches": {200},
    "repos/get-branch": {200, 404},
    "git/get-ref": {200, 404},
    "git/list-matching-refs": {200},
    "git/create-ref": {201, 422},
    "git/update-ref": {200, 422},
    "git/delete-ref": {204},
    "git/get-commit": {200, 404},
    "git/create-commit": {201, 422},
    "git/get-tree": {200, 404},
    "git/create-tree": {201, 422},
    "git/get-blob": {200, 404},
    "git/create-blob": {201, 422},
    "repos/list-commits": {200},
    "repos/get-commit": {200, 422},
    "repos/compare-commits-with-basehead": {200, 404},
    "repos/get-content": {200, 304, 404},
    "repos/create-or-update-file-contents": {200, 201, 409, 422},
    "repos/delete-file": {200},
    "search/code": {200, 422},
    "search/repos": {200},
    "search/commits": {200},
    "apps/get-authenticated": {200},
    "apps/create-installation-access-token": {201, 404},
}


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def exercise_users_and_repos(world: World, api) -> None:
    api.get("/user")
    with world.client(anonymous=True) as anon:
        anon.get("/user")
        anon.get(f"{REPO}")  # anonymous: no permissions block
    api.get("/users/octocat")
    api.get("/users/nobody-here")
    api.get("/rate_limit")
    api.get("/user/repos")
    api.get(REPO)
    api.get("/repos/octocat/missing")
    api.get(f"{REPO}/branches")
    api.get(f"{REPO}/branches/feature/shout")
    api.get(f"{REPO}/branches/no-such-branch")
    etag = api.get(f"{REPO}/contents/README.md").headers["etag"]
    api.get(f"{REPO}/contents/README.md", headers={"If-None-Match": etag})


def exercise_git_data(api) -> None:
    head = api.get(f"{REPO}/git/ref/heads/main").json()["object"]["sha"]
    api.get(f"{REPO}/git/ref/heads/nope")
    api.get(f"{REPO}/git/matching-refs/heads")
    tree = api.get(f"{REPO}/git/commits/{head}").json()["tree"]["sha"]
    api.get(f"{REPO}/git/commits/{'a' * 40}")
    api.get(f"{REPO}/git/trees/{tree}", params={"recursive": "1"})
    api.get(f"{REPO}/git/trees/{'b' * 40}")
    blob = api.post(f"{REPO}/git/blobs", json={"content": "contract\n"}).json()["sha"]
    api.post(f"{REPO}/git/blobs", json={"content": "%%", "encoding": "base64"})
    api.get(f"{REPO}/git/blobs/{blob}")
    api.get(f"{REPO}/git/blobs/{'c' * 40}")
    entry = {"path": "contract.txt", "mode": "100644", "type": "blob", "sha": blob}
    new_tree = api.post(f"{REPO}/git/trees", json={"base_tree": tree, "tree": [entry]}).json()
    api.post(f"{REPO}/git/trees", json={"tree": [{"path": "../x", "content": "x"}]})
    body = {"message": "contract", "tree": new_tree["sha"], "parents": [head]}
    commit = api.post(f"{REPO}/git/commits", json=body).json()["sha"]
    api.post(f"{REPO}/git/commits", json={"message": "m", "tree": "d" * 40})
    api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/contract", "sha": head})
    api.post(f"{REPO}/git/refs", json={"ref": "refs/heads/contract", "sha": head})
    api.patch(f"{REPO}/git/refs/heads/contract", json={"sha": commit})
    sideways = api.post(
        f"{REPO}/git/commits", json={"message": "side", "tree": tree, "parents": [head]}
    ).json()["sha"]
    api.patch(f"{REPO}/git/refs/heads/contract", json={"sha": sideways})  # 422: not a FF
    api.delete(f"{REPO}/git/refs/heads/contract")


def exercise_history_and_contents(api) -> None:
    api.get(f"{REPO}/commits", params={"per_page": 1})
    api.get(f"{REPO}/commits/main")
    api.get(f"{REPO}/commits/not-a-ref")
    api.get(f"{REPO}/compare/main...feature/shout")
    api.get(f"{REPO}/compare/main...nope")
    api.get(f"{REPO}/contents/src")
    api.get(f"{REPO}/contents/src", headers={"Accept": "application/vnd.github.object"})
    api.get(f"{REPO}/contents/src/app.py")
    api.get(f"{REPO}/contents/nope")
    created = api.put(f"{REPO}/contents/c/new.txt", json={"message": "m", "content": b64("1")})
    sha = created.json()["content"]["sha"]
    api.put(f"{REPO}/contents/c/new.txt", json={"message": "m", "content": b64("2"), "sha": sha})
    api.put(f"{REPO}/contents/c/new.txt", json={"message": "m", "content": b64("3")})  # 422
    api.put(
        f"{REPO}/contents/c/new.txt",
        json={"message": "m", "content": b64("3"), "sha": "0" * 40},
    )  # 409
    current = api.get(f"{REPO}/contents/c/new.txt").json()["sha"]
    api.request("DELETE", f"{REPO}/contents/c/new.txt", json={"message": "rm", "sha": current})


def exercise_search(api) -> None:
    api.get("/search/code", params={"q": "needle"})
    api.get("/search/code", params={"q": ""})
    api.get("/search/repositories", params={"q": "hello"})
    api.get("/search/commits", params={"q": "initial"})


def exercise_app(world: World) -> None:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    world.forge.register_app(99, public, 5, repos=["octocat/hello"])
    now = int(time.time())
    token = jwt.encode({"iat": now - 60, "exp": now + 500, "iss": "99"}, key, algorithm="RS256")
    with world.client(anonymous=True, headers={"Authorization": f"Bearer {token}"}) as app:
        app.get("/app")
        app.post("/app/installations/5/access_tokens")
        app.post("/app/installations/6/access_tokens")


@pytest.fixture(scope="module")
def recorded() -> Iterator[list[dict]]:
    with Forge(record_responses=True) as forge:
        world = make_world(forge)
        with world.client() as api:
            exercise_users_and_repos(world, api)
            exercise_git_data(api)
            exercise_history_and_contents(api)
            exercise_search(api)
        exercise_app(world)
        yield forge.responses()


def test_every_recorded_response_matches_githubs_openapi(recorded):
    problems = contract.validate_records(recorded)
    assert problems == [], "\n".join(problems)


def test_the_scenario_covers_every_endpoint_and_error(recorded):
    covered = contract.operations_covered(recorded)
    missing = {
        op: sorted(statuses - covered.get(op, set()))
        for op, statuses in EXPECTED_OPERATIONS.items()
        if not statuses <= covered.get(op, set())
    }
    assert missing == {}


def test_the_validator_rejects_bodies_that_break_the_schema():
    good = {
        "method": "GET",
        "path": "/repos/o/r/git/ref/heads/main",
        "status": 200,
        "content_type": "application/json; charset=utf-8",
        "body": {"ref": "refs/heads/main", "node_id": "x", "url": "http://h/x", "object": {}},
    }
    problems = contract.validate_records([good])
    assert any("'sha' is a required property" in p for p in problems)
    nullable = dict(good, path="/repos/o/r", body={"description": None})
    assert not any("description" in p for p in contract.validate_records([nullable]))
    wrong_type = dict(good, body={**good["body"], "object": {"sha": 5, "type": "c", "url": "u"}})
    assert any(
        "$.object.sha: 5 is not of type 'string'" in p
        for p in contract.validate_records([wrong_type])
    )
    bad_date = dict(
        good,
        path="/repos/o/r/commits",
        body=[{"commit": {"author": {"name": "a", "email": "b", "date": "yesterday"}}}],
    )
    assert any("date-time" in p for p in contract.validate_records([bad_date]))


def test_request_bodies_are_checked_against_the_documented_request_body():
    sent = {
        "method": "POST",
        "path": "/repos/o/r/releases",
        "status": 201,
        "request_body": {"tag_name": "v1", "draft": True},
    }
    assert contract.validate_request_bodies([sent]) == []
    no_tag = dict(sent, request_body={"draft": True})
    assert any(
        "'tag_name' is a required property" in p for p in contract.validate_request_bodies([no_tag])
    )
    wrong = dict(sent, request_body={"tag_name": "v1", "draft": "yes"})
    assert any(
        "'yes' is not of type 'boolean'" in p for p in contract.validate_request_bodies([wrong])
    )
    bodiless_get = {"method": "GET", "path": "/repos/o/r", "status": 200, "request_body": {"x": 1}}
    assert contract.validate_request_bodies([bodiless_get]) != []


def test_paths_map_to_the_most_specific_operation():
    check = contract.validator()
    assert check.operation("GET", "/repos/o/r/branches/feat/x").operation_id == "repos/get-branch"
    assert check.operation("GET", "/api/v3/repos/o/r").operation_id == "repos/get"
    assert check.operation("GET", "/repos/o/r/contents").operation_id == "repos/get-content"
    status = check.operation("GET", "/repos/o/r/commits/abc/status").operation_id
    assert status == "repos/get-combined-status-for-ref"


def test_a_missing_description_is_a_clear_failure(tmp_path: Path):
    with pytest.raises(contract.SpecMissing, match=r"fetch_openapi\.sh"):
        contract.load_spec(tmp_path / "absent.json")
