"""A standard set of repositories, users and tokens that forge tests start from."""

from __future__ import annotations

from dataclasses import dataclass

import httpx2

from sandbox_forge import Forge

HELLO_FILES = {
    "README.md": "# hello\n\nHello, world.\n",
    "src/app.py": "def greet(name):\n    return f'hello {name}'\n",
    "src/util/helpers.py": "HELPER = 'needle in a haystack'\n",
    "docs/guide.md": "# Guide\n",
}


@dataclass
class World:
    forge: Forge
    token: str  # octocat, write, classic
    read_token: str  # octocat, read-only, fine-grained
    limited_token: str  # octocat, write, only octocat/hello

    def client(
        self, token: str | None = None, *, anonymous: bool = False, **kwargs
    ) -> httpx2.Client:
        """A client for the forge: with world.token unless another token (or none) is given."""
        headers = {"Accept": "application/vnd.github+json", **kwargs.pop("headers", {})}
        if not anonymous:
            headers["Authorization"] = f"token {token or self.token}"
        return httpx2.Client(base_url=self.forge.base_url, headers=headers, timeout=10, **kwargs)


def make_world(forge: Forge) -> World:
    """octocat/hello (public, with feature/shout) and octocat/secret (private)."""
    forge.add_user("octocat", name="The Octocat", email="octocat@users.noreply.sandbox")
    forge.seed_repo(
        "octocat/hello",
        HELLO_FILES,
        description="A public greeting",
        branches={"feature/shout": {"src/app.py": "def greet(name):\n    return 'HELLO'\n"}},
    )
    forge.seed_repo("octocat/secret", {"secret.txt": "classified\n"}, private=True)
    return World(
        forge=forge,
        token=forge.create_token("octocat"),
        read_token=forge.create_token("octocat", access="read", kind="fine_grained"),
        limited_token=forge.create_token("octocat", repos=["octocat/hello"], kind="fine_grained"),
    )
