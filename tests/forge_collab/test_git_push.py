"""Pull requests follow real `git push`es, and publish refs/pull/N/head for `git fetch`."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

from .conftest import LAB


def _git(tmp: Path, *args: str, token: str, cwd: Path | None = None) -> str:
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    env = {
        **os.environ,
        "HOME": str(tmp),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_AUTHOR_NAME": "Tester",
        "GIT_AUTHOR_EMAIL": "tester@example.com",
        "GIT_COMMITTER_NAME": "Tester",
        "GIT_COMMITTER_EMAIL": "tester@example.com",
    }
    proc = subprocess.run(
        ["git", "-c", f"http.extraHeader=Authorization: Basic {basic}", *args],
        cwd=cwd or tmp,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc.stdout


def test_push_moves_the_pull_request_and_pull_refs_are_fetchable(api, lab, tmp_path):
    lab.admin.patch("/_sandbox/collab/settings", json={"mergeability_delay": 0})
    number = api.post(
        f"/repos/{LAB}/pulls", json={"title": "Two", "head": "feature/two", "base": "main"}
    ).json()["number"]
    assert api.get(f"/repos/{LAB}/pulls/{number}").json()["mergeable"] is True

    url = f"{lab.forge.base_url}/{LAB}.git"
    work = tmp_path / "lab"
    _git(tmp_path, "clone", "--quiet", url, str(work), token=lab.token)
    _git(
        tmp_path,
        "fetch",
        "--quiet",
        "origin",
        f"pull/{number}/head:pr-{number}",
        token=lab.token,
        cwd=work,
    )
    _git(tmp_path, "checkout", "--quiet", f"pr-{number}", token=lab.token, cwd=work)
    (work / "app.py").write_text("def one():\n    return 1\n\n\ndef two():\n    return 222\n")
    _git(tmp_path, "commit", "--quiet", "-am", "Even more two", token=lab.token, cwd=work)
    _git(
        tmp_path, "push", "--quiet", "origin", f"pr-{number}:feature/two", token=lab.token, cwd=work
    )
    pushed = _git(tmp_path, "rev-parse", "HEAD", token=lab.token, cwd=work).strip()

    pr = api.get(f"/repos/{LAB}/pulls/{number}").json()
    assert pr["head"]["sha"] == pushed and pr["commits"] == 2
    refs = _git(tmp_path, "ls-remote", url, f"refs/pull/{number}/*", token=lab.token)
    assert f"{pushed}\trefs/pull/{number}/head" in refs
    assert f"refs/pull/{number}/merge" in refs  # the test merge of a mergeable PR

    # A conflicting push to main: the PR turns dirty and its test merge ref goes away.
    _git(tmp_path, "checkout", "--quiet", "main", token=lab.token, cwd=work)
    (work / "app.py").write_text("def one():\n    return 1\n\n\ndef two():\n    return -2\n")
    _git(tmp_path, "commit", "--quiet", "-am", "Negative two", token=lab.token, cwd=work)
    _git(tmp_path, "push", "--quiet", "origin", "main", token=lab.token, cwd=work)
    assert api.get(f"/repos/{LAB}/pulls/{number}").json()["mergeable_state"] == "dirty"
    refs = _git(tmp_path, "ls-remote", url, f"refs/pull/{number}/*", token=lab.token)
    assert f"refs/pull/{number}/merge" not in refs
