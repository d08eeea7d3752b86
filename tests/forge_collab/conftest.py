"""Fixtures for the forge's collaboration features: a started forge per test (its state is
changed by merges and reviews), the demo, small repositories to merge in, and clients.

Every REST response a test records is checked against GitHub's OpenAPI description when
the test ends (GraphQL is not a REST operation and is left out).
"""

from __future__ import annotations

import base64
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import httpx2
import pytest

from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo
from tests.forge.contract import validate_records

DEMO = "octo-org/demo-app"
LAB = "octocat/lab"
NOT_REST = ("/graphql", "/api/graphql")

LAB_FILES = {
    "README.md": "# lab\n",
    "app.py": "def one():\n    return 1\n\n\ndef two():\n    return 2\n",
    "notes.txt": "alpha\nbeta\ngamma\n",
}


@dataclass
class Lab:
    forge: Forge
    token: str
    admin: httpx2.Client

    def client(self, token: str | None = None, **headers: str) -> httpx2.Client:
        auth = {"Authorization": f"token {token or self.token}"} if token != "" else {}
        return httpx2.Client(
            base_url=self.forge.base_url,
            headers={"Accept": "application/vnd.github+json", **auth, **headers},
            timeout=10,
        )

    def commit(self, api: httpx2.Client, repo: str, branch: str, path: str, text: str) -> str:
        """A commit on branch through the Contents API; returns the new commit sha."""
        current = api.get(f"/repos/{repo}/contents/{path}", params={"ref": branch})
        body: dict[str, Any] = {
            "message": f"Edit {path}",
            "content": base64.b64encode(text.encode()).decode(),
            "branch": branch,
        }
        if current.status_code == 200:
            body["sha"] = current.json()["sha"]
        response = api.put(f"/repos/{repo}/contents/{path}", json=body)
        assert response.status_code in (200, 201), response.text
        return response.json()["commit"]["sha"]

    def head(self, repo: str, branch: str) -> str:
        owner, name = repo.split("/")
        record = self.forge.state.repo(owner, name)
        assert record is not None
        sha = record.git.read_ref(f"refs/heads/{branch}")
        assert sha is not None
        return sha


@pytest.fixture
def forge() -> Iterator[Forge]:
    with Forge(record_responses=True) as started:
        yield started
        records = [r for r in started.responses() if r["path"] not in NOT_REST]
        problems = validate_records(records)
        assert not problems, "responses that break GitHub's OpenAPI description:\n" + "\n".join(
            problems
        )


@pytest.fixture
def lab(forge: Forge) -> Iterator[Lab]:
    """octocat/lab with two feature branches, and alice and bob as extra users."""
    forge.add_user("octocat", name="The Octocat", email="octocat@users.noreply.sandbox")
    for login in ("alice", "bob"):
        forge.add_user(login, name=login.title(), email=f"{login}@example.com")
    forge.seed_repo(
        LAB,
        LAB_FILES,
        branches={
            "feature/two": {"app.py": LAB_FILES["app.py"].replace("return 2", "return 22")},
            "feature/notes": {"notes.txt": "alpha\nBETA\ngamma\ndelta\n"},
        },
    )
    admin = httpx2.Client(
        base_url=forge.base_url,
        headers={"Authorization": f"Bearer {forge.admin_token}"},
        timeout=10,
    )
    yield Lab(forge, forge.create_token("octocat"), admin)
    admin.close()


@pytest.fixture
def api(lab: Lab) -> Iterator[httpx2.Client]:
    with lab.client() as client:
        yield client


@pytest.fixture
def demo(forge: Forge) -> dict[str, Any]:
    """The full demo (core repository plus collaboration data); returns its summary."""
    seed_demo(forge)
    summary = forge.state.extensions.get("collab_demo")
    assert summary is not None, "seed_demo did not add the collaboration demo"
    return summary


@pytest.fixture
def demo_api(forge: Forge, demo: dict[str, Any]) -> Iterator[httpx2.Client]:
    token = forge.create_token("octocat")
    with httpx2.Client(
        base_url=forge.base_url,
        headers={"Authorization": f"token {token}", "Accept": "application/vnd.github+json"},
        timeout=10,
    ) as client:
        yield client


def graphql(client: httpx2.Client, query: str, **variables: Any) -> dict[str, Any]:
    response = client.post("/graphql", json={"query": query, "variables": variables})
    assert response.status_code == 200, response.text
    return response.json()
