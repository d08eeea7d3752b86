"""Blob SHAs computed without git agree with git's own (git is the oracle, so this is
not in the unit tier)."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from github_mcp.services.shared.content import (
    git_blob_sha,
)


@pytest.mark.parametrize("data", [b"", b"hello\n", "é€😀\r\n".encode(), bytes(range(256))])
def test_git_blob_sha_matches_git_hash_object(tmp_path, data):
    known = {b"": "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"}
    if data in known:
        assert git_blob_sha(data) == known[data]
    if shutil.which("git") is None:
        pytest.fail("git is not installed: run `bash tests/install_system_packages.sh`")
    f = tmp_path / "blob"
    f.write_bytes(data)
    out = subprocess.run(
        ["git", "hash-object", "--no-filters", str(f)], capture_output=True, check=True
    )
    assert git_blob_sha(data) == out.stdout.decode().strip()
