"""Fixtures: a forge on loopback (one server, reset per test), seeded repositories, clients."""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from sandbox_forge import Forge

from .worlds import World, make_world


@pytest.fixture(scope="session")
def running_forge() -> Iterator[Forge]:
    with Forge(record_responses=True) as started:
        yield started


@pytest.fixture
def forge(running_forge: Forge) -> Forge:
    """The session's forge, emptied: every test starts from nothing."""
    running_forge.reset()
    return running_forge


@pytest.fixture
def world(forge: Forge) -> World:
    return make_world(forge)


@pytest.fixture
def api(world: World) -> Iterator[httpx2.Client]:
    with world.client() as client:
        yield client
