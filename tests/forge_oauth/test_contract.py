"""The collaborators and organisation-membership endpoints validate against GitHub's
OpenAPI description (tests/forge/fetch_openapi.sh installs it; missing, these fail)."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo_people, seed_demo_repo
from tests.forge import contract

from .conftest import api

DEMO = "/repos/octo-org/demo-app"
EXPECTED = {
    "repos/list-collaborators": {200, 403, 404},
    "repos/check-collaborator": {204, 404},
    "repos/add-collaborator": {201, 204, 403, 422},
    "repos/remove-collaborator": {204, 403},
    "repos/get-collaborator-permission-level": {200, 404},
    "orgs/list-for-authenticated-user": {200, 401},
    "orgs/get-membership-for-authenticated-user": {200, 404},
    "orgs/check-membership-for-user": {204, 404},
    "orgs/get-membership-for-user": {200, 404},
    "users/get-authenticated": {200},
    "apps/check-token": {200, 404},
    "apps/delete-token": {204, 422},
    "apps/delete-authorization": {204},
}


@pytest.fixture(scope="module")
def recorded() -> Iterator[list[dict]]:
    with Forge(record_responses=True) as forge:
        seed_demo_repo(forge)
        seed_demo_people(forge)
        forge.add_user("carol")
        url = forge.base_url
        alice = api(url, forge.create_token("alice", user_roles=True))
        bob = api(url, forge.create_token("bob", user_roles=True))
        anonymous = api(url, None)
        with alice, bob, anonymous:
            alice.get("/user")
            alice.get(f"{DEMO}/collaborators")
            bob.get(f"{DEMO}/collaborators")  # 403: reading them needs push
            alice.get("/repos/octo-org/nope/collaborators")
            alice.get(f"{DEMO}/collaborators/bob")
            alice.get(f"{DEMO}/collaborators/carol")
            alice.put(f"{DEMO}/collaborators/carol", json={"permission": "triage"})  # 201
            alice.put(f"{DEMO}/collaborators/carol", json={"permission": "maintain"})  # 204
            alice.put(f"{DEMO}/collaborators/carol", json={"permission": "owner"})  # 422
            bob.put(f"{DEMO}/collaborators/bob", json={"permission": "admin"})  # 403
            alice.get(f"{DEMO}/collaborators/carol/permission")
            alice.get(f"{DEMO}/collaborators/nobody-here/permission")
            bob.delete(f"{DEMO}/collaborators/carol")  # 403
            alice.delete(f"{DEMO}/collaborators/carol")
            alice.get("/user/orgs")
            anonymous.get("/user/orgs")
            alice.get("/user/memberships/orgs/octo-org")
            bob.get("/user/memberships/orgs/octo-org")
            alice.get("/orgs/octo-org/members/alice")
            alice.get("/orgs/octo-org/members/bob")
            alice.get("/orgs/octo-org/memberships/alice")
            alice.get("/orgs/octo-org/memberships/bob")
        app = forge.register_oauth_app("Contract", ["http://127.0.0.1:48123/cb"], expiring=True)
        token = forge.state.create_token(
            "alice", kind="user_to_server", user_roles=True, client_id=app["client_id"]
        )
        path = f"/applications/{app['client_id']}"
        credentials = (app["client_id"], app["client_secret"])
        with httpx2.Client(base_url=url, auth=credentials) as client:
            client.post(f"{path}/token", json={"access_token": token})
            client.post(f"{path}/token", json={"access_token": "ghu_unknown"})
            client.request("DELETE", f"{path}/token", json={})
            client.request("DELETE", f"{path}/token", json={"access_token": token})
            client.request("DELETE", f"{path}/grant", json={"access_token": token})
        yield forge.responses()


def test_every_response_matches_githubs_openapi(recorded):
    assert contract.validate_records(recorded) == []


def test_the_scenario_covers_every_operation_and_status(recorded):
    covered = contract.operations_covered(recorded)
    for operation, statuses in EXPECTED.items():
        assert statuses <= covered.get(operation, set()), (operation, covered.get(operation))
