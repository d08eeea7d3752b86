"""The unit tier: no forge, no subprocess, no network. A test here that starts a process,
opens a connection or asks for the forge fails, so the tier stays what `make test-fast`
promises (tests/integration-style tests live beside their subject outside tests/unit)."""

from __future__ import annotations

import socket
import subprocess

import pytest

NOT_HERE = {"forge", "make_runtime", "mcp_client"}


def _refused(what: str):
    def refuse(*args, **kwargs):
        raise AssertionError(f"a unit test may not {what}: move it out of tests/unit")

    return refuse


@pytest.fixture(autouse=True)
def _no_processes_or_network(monkeypatch, request):
    needs = NOT_HERE & set(request.fixturenames)
    assert not needs, f"a unit test may not use {sorted(needs)}: move it out of tests/unit"
    monkeypatch.setattr(subprocess.Popen, "__init__", _refused("start a process"))
    monkeypatch.setattr(socket.socket, "connect", _refused("open a connection"))
    monkeypatch.setattr(socket.socket, "connect_ex", _refused("open a connection"))
