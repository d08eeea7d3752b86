"""Gists: a few named text files with a description, owned by a user. A secret gist is
unlisted, not private: anyone with its id reads it, as on GitHub."""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass, field

from sandbox_forge.stores.state import ForgeState

EXTENSION = "gists"


@dataclass
class Gist:
    id: str
    owner: str
    files: dict[str, str]
    description: str | None = None
    public: bool = False
    created_at: float = field(default_factory=time.time)
    updated_at: float = field(default_factory=time.time)


def gists(state: ForgeState) -> dict[str, Gist]:
    found: dict[str, Gist] = state.extensions.setdefault(EXTENSION, {})
    return found


def create_gist(
    state: ForgeState, owner: str, files: dict[str, str], description: str | None, public: bool
) -> Gist:
    with state.lock:
        gist = Gist(
            id=secrets.token_hex(16),
            owner=owner,
            files=dict(files),
            description=description,
            public=public,
        )
        gists(state)[gist.id] = gist
    return gist
