"""The tree filter against git's own ignore rules on random trees (git is the oracle, so
this is not in the unit tier)."""

from __future__ import annotations

import random
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.unit.test_tree import _random_gitignore, _random_scenario, kept, reasons, run

# --------------------------------------------------------------------------- helpers


def test_matches_real_git_on_random_trees(tmp_path: Path):
    if shutil.which("git") is None:
        pytest.fail("git is not installed: run `bash tests/install_system_packages.sh`")
    rnd = random.Random(1234)
    checked = ignored = negated = 0
    for n in range(60):
        files, dirs = _random_scenario(rnd)
        gitignores = {d: _random_gitignore(rnd, True) for d in rnd.sample(dirs, min(3, len(dirs)))}
        repo = tmp_path / f"r{n}"
        for f in files:
            (repo / f).parent.mkdir(parents=True, exist_ok=True)
            (repo / f).write_text("x")
        for d, text in gitignores.items():
            (repo / d).mkdir(parents=True, exist_ok=True)
            (repo / d / ".gitignore").write_text(text)
        subprocess.run(["git", "init", "-q", str(repo)], check=True)
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True)
        out = subprocess.run(
            ["git", "-C", str(repo), "ls-files", "-z"], check=True, capture_output=True
        ).stdout.decode()
        tracked = set(filter(None, out.split("\0")))
        all_files = set(files) | {f"{d}/.gitignore" if d else ".gitignore" for d in gitignores}
        r = run(sorted(all_files), gitignores)
        ours = set(kept(r))
        assert ours == tracked, (n, gitignores, sorted(ours ^ tracked))
        assert set(reasons(r).values()) <= {"gitignore"}
        # the same verdicts when only a subdirectory is listed
        sub = rnd.choice(dirs)
        r_sub = run(sorted(all_files), gitignores, subtree=sub)
        assert set(kept(r_sub)) == {f for f in tracked if not sub or f.startswith(sub + "/")}
        checked += len(all_files)
        ignored += len(all_files) - len(tracked)
        negated += any("!" in text for text in gitignores.values()) and bool(r.excluded)
    assert checked > 1000 and ignored > 300 and negated > 20
