"""How a server registers its OAuth app on the forge, the admin routes for people, and
the demo seed's users (printed by the forge's CLI)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import httpx2

from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo_people, seed_demo_repo

from .conftest import CALLBACK, api, exchange, run_flow

ROOT = Path(__file__).resolve().parents[2]


def test_a_server_registers_its_own_app_with_the_admin_token(people, browser):
    url = f"{people.url}/_sandbox/oauth/apps"
    body = {"name": "GitHub MCP", "callback_urls": [CALLBACK]}
    assert httpx2.post(url, json=body).status_code == 401
    wrong = {"Authorization": "Bearer sbx_admin_wrong"}
    assert httpx2.post(url, json=body, headers=wrong).status_code == 401
    admin = {"Authorization": f"Bearer {people.forge.admin_token}"}
    created = httpx2.post(url, json=body, headers=admin)
    assert created.status_code == 201
    app = created.json()
    assert app["client_id"].startswith("Ov23li") and len(app["client_id"]) == 20
    assert re.fullmatch(r"[0-9a-f]{40}", app["client_secret"])
    assert app["callback_urls"] == [CALLBACK] and app["expiring"] is False
    listed = httpx2.get(url, headers=admin).json()
    assert app["client_id"] in {a["client_id"] for a in listed}
    assert app["client_secret"] not in str(listed)  # shown once, kept only as a digest

    outcome = run_flow(
        browser,
        people.url,
        {"client_id": app["client_id"], "redirect_uri": CALLBACK, "scope": "repo"},
        "alice",
        people.passwords["alice"],
    )
    outcome.context.close()
    token = exchange(people.url, app, code=outcome.query()["code"])["access_token"]
    with api(people.url, token) as alice:
        assert alice.get("/user").json()["login"] == "alice"

    for bad in (
        {"name": "x"},
        {"name": "", "callback_urls": [CALLBACK]},
        {"name": "x", "callback_urls": ["javascript:alert(1)"]},
        {"name": "x", "callback_urls": ["http://h/cb#frag"]},
    ):
        assert httpx2.post(url, json=bad, headers=admin).status_code == 422, bad


def test_admin_routes_set_passwords_members_and_collaborators(browser):
    with Forge() as forge:
        forge.add_user("acme", type="Organization")
        forge.seed_repo("acme/tool", {"a.txt": "a"}, private=True)
        admin = {"Authorization": f"Bearer {forge.admin_token}"}
        base = f"{forge.base_url}/_sandbox"
        user = {"login": "dora", "password": "dora-pass-1"}
        assert httpx2.post(f"{base}/users", json=user, headers=admin).status_code == 201
        token = forge.create_token("dora", user_roles=True)
        with api(forge.base_url, token) as dora:
            assert dora.get("/repos/acme/tool").status_code == 404
            member = {"login": "dora", "role": "member"}
            answer = httpx2.post(f"{base}/orgs/acme/members", json=member, headers=admin)
            assert answer.status_code == 201
            assert dora.get("/repos/acme/tool").json()["permissions"]["push"] is False
            role = {"login": "dora", "role": "maintain"}
            answer = httpx2.post(f"{base}/repos/acme/tool/collaborators", json=role, headers=admin)
            assert answer.status_code == 201
            assert dora.get("/repos/acme/tool").json()["permissions"]["maintain"] is True
            bad = {"login": "dora", "role": "owner"}
            answer = httpx2.post(f"{base}/repos/acme/tool/collaborators", json=bad, headers=admin)
            assert answer.status_code == 422
        app = forge.register_oauth_app("Dora's", [CALLBACK])
        outcome = run_flow(
            browser,
            forge.base_url,
            {"client_id": app["client_id"], "redirect_uri": CALLBACK},
            "dora",
            "dora-pass-1",
        )
        outcome.context.close()
        assert "code" in outcome.query()  # the password set through the admin route works


def test_demo_people_really_differ():
    with Forge() as forge:
        seed_demo_repo(forge)
        passwords = seed_demo_people(forge)
        assert set(passwords) == {"alice", "bob"} and passwords["alice"] != passwords["bob"]
        private = forge.state.repo("octo-org", "private-notes")
        assert private is not None and private.private
        access = forge.state.access
        assert access.org_role("octo-org", "alice") == "admin"
        assert access.org_role("octo-org", "bob") is None
        assert access.collaborator_role("octo-org/demo-app", "bob") == "read"


def test_the_cli_prints_the_demo_users_passwords():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox_forge", "--port", "0", "--seed", "demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(7)]
        text = "".join(lines)
        base_url = re.search(r"listening on (http://\S+)", text)[1]
        found = dict(re.findall(r"sign in as:\s+(\w+) / (\S+)", text))
        assert set(found) == {"alice", "bob"}
        with httpx2.Client(base_url=base_url) as client:
            page = client.get("/login")
            token = re.search(r"name='authenticity_token' value='([^']+)'", page.text)[1]
            signed_in = client.post(
                "/session",
                data={"login": "bob", "password": found["bob"], "authenticity_token": token},
            )
            assert signed_in.status_code == 302  # bob's printed password works
    finally:
        proc.terminate()
        try:
            proc.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
