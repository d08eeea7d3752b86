"""The unit tier keeps its promise: a process or a connection started here fails."""

from __future__ import annotations

import socket
import subprocess

import pytest


def test_a_process_is_refused():
    with pytest.raises(AssertionError, match="may not start a process"):
        subprocess.run(["true"], check=False)


def test_a_connection_is_refused():
    with socket.socket() as sock, pytest.raises(AssertionError, match="may not open a connection"):
        sock.connect(("127.0.0.1", 9))
