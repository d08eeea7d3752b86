"""Our patches against git's: ours apply with git apply, git's diffs apply with us (git
is the oracle, so this is not in the unit tier)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from github_mcp.services.shared.patches._service import (
    unified_diff,
)
from tests.unit.test_patches import _mutate, _random_text, apply_all


def test_our_diffs_apply_with_git_and_git_diffs_apply_with_us(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.fail("git is not installed: run `bash tests/install_system_packages.sh`")
    rnd = random.Random(11)
    repo = tmp_path / "r"
    repo.mkdir()
    git = ["git", "-C", str(repo), "-c", "core.autocrlf=false", "-c", "user.name=t"]
    git += ["-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], check=True)
    before, after = {}, {}
    for i in range(12):
        a = _random_text(rnd)
        before[f"f{i}.txt"] = a
        after[f"f{i}.txt"] = _mutate(rnd, a)
    after["brand new.txt"] = "hello\nworld\n"
    del after["f0.txt"]
    for name, text in before.items():
        (repo / name).write_bytes(text.encode())
    subprocess.run([*git, "add", "-A"], check=True)
    subprocess.run([*git, "commit", "-qm", "before"], check=True)
    # ours -> git apply
    ours = "".join(
        unified_diff(before.get(p), after.get(p), p) for p in sorted(set(before) | set(after))
    )
    (tmp_path / "ours.diff").write_bytes(ours.encode())
    subprocess.run([*git, "apply", "--check", str(tmp_path / "ours.diff")], check=True)
    # git diff -> ours
    for name in before:
        (repo / name).unlink()
    for name, text in after.items():
        (repo / name).write_bytes(text.encode())
    subprocess.run([*git, "add", "-A"], check=True)
    theirs = subprocess.run(
        [*git, "diff", "--cached", "--no-color", "--no-renames"], capture_output=True, check=True
    ).stdout.decode()
    assert apply_all(theirs, before) == after
