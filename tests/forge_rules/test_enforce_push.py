"""`git push` over smart HTTP obeys rulesets and classic protection, per ref as GitHub
reports it (GH013 / GH006 on the remote lines, "[remote rejected]" for the ref); refused
refs keep their heads (the forge's git state) and accepted refs of the same push move."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

from .conftest import LAB, add_ruleset, heads


def _git(tmp: Path, *args: str, token: str, cwd: Path | None = None, ok: bool = True):
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
        timeout=120,
        check=False,
    )
    if ok:
        assert proc.returncode == 0, f"git {' '.join(args)}: {proc.stderr}"
    return proc


def _clone(lab, tmp: Path) -> Path:
    work = tmp / "lab"
    _git(tmp, "clone", "--quiet", f"{lab.forge.base_url}/{LAB}.git", str(work), token=lab.token)
    return work


def _commit(tmp: Path, work: Path, lab, name: str = "pushed.txt") -> None:
    (work / name).write_text("pushed\n")
    _git(tmp, "add", name, token=lab.token, cwd=work)
    _git(tmp, "commit", "--quiet", "-m", f"Add {name}", token=lab.token, cwd=work)


def test_force_push_deletion_and_unsigned_commits_are_refused_per_ref(api, lab, tmp_path):
    add_ruleset(
        api,
        "main",
        ["~DEFAULT_BRANCH"],
        {"type": "non_fast_forward"},
        {"type": "required_signatures"},
    )
    add_ruleset(api, "features", ["refs/heads/feature/*"], {"type": "deletion"})
    work = _clone(lab, tmp_path)
    before = heads(lab)
    _commit(tmp_path, work, lab)
    pushed = _git(
        tmp_path,
        "push",
        "origin",
        "HEAD:main",
        ":feature/notes",
        "HEAD:refs/heads/fresh",
        token=lab.token,
        cwd=work,
        ok=False,
    )
    assert pushed.returncode != 0
    err = pushed.stderr
    assert "remote: error: GH013: Repository rule violations found for refs/heads/main." in err
    assert "rules?ref=refs%2Fheads%2Fmain" in err
    assert "remote: - Commits must have verified signatures." in err
    assert "Found 1 violation:" in err
    assert (
        "! [remote rejected] HEAD -> main (push declined due to repository rule violations)" in err
    )
    assert "remote: - Cannot delete this branch" in err
    assert (
        "[remote rejected] feature/notes (push declined due to repository rule violations)" in err
    )
    after = heads(lab)
    assert after["main"] == before["main"] and after["feature/notes"] == before["feature/notes"]
    assert "fresh" in after  # the unruled ref of the same push went through


def test_force_push_is_refused_by_ruleset_and_by_classic_protection(api, lab, tmp_path):
    add_ruleset(api, "no force", ["refs/heads/feature/two"], {"type": "non_fast_forward"})
    api.put(
        f"/repos/{LAB}/branches/feature/notes/protection",
        json={
            "required_status_checks": None,
            "enforce_admins": True,
            "required_pull_request_reviews": None,
            "restrictions": None,
        },
    ).raise_for_status()
    work = _clone(lab, tmp_path)
    before = heads(lab)
    pushed = _git(
        tmp_path,
        "push",
        "--force",
        "origin",
        "origin/main:feature/two",
        "origin/main:feature/notes",
        token=lab.token,
        cwd=work,
        ok=False,
    )
    err = pushed.stderr
    assert "remote: - Cannot force-push to this branch" in err
    assert (
        "remote: error: GH006: Protected branch update failed for refs/heads/feature/notes." in err
    )
    assert "remote: error: Cannot force-push to this protected branch" in err
    assert "feature/notes (protected branch hook declined)" in err
    assert heads(lab) == before
    # A fast-forward push to the same protected branches is accepted.
    _git(
        tmp_path,
        "checkout",
        "--quiet",
        "-b",
        "two",
        "origin/feature/two",
        token=lab.token,
        cwd=work,
    )
    _commit(tmp_path, work, lab, "forward.txt")
    _git(tmp_path, "push", "--quiet", "origin", "two:feature/two", token=lab.token, cwd=work)
    assert heads(lab)["feature/two"] != before["feature/two"]


def test_pushes_to_repositories_without_rules_skip_the_hook(api, lab, tmp_path):
    work = _clone(lab, tmp_path)
    before = heads(lab)
    _commit(tmp_path, work, lab)
    pushed = _git(tmp_path, "push", "origin", "HEAD:main", token=lab.token, cwd=work)
    assert "GH0" not in pushed.stderr
    assert not (lab.forge.state.repos_dir.parent / "push-hooks").exists()
    assert heads(lab)["main"] != before["main"]


def test_the_hook_asks_the_forge_itself_whatever_host_the_pusher_names(api, lab, tmp_path):
    """The rules check goes to the socket the push came in on, not the Host header: a
    pusher naming its own server there would otherwise answer "ok" for every ref."""
    add_ruleset(api, "main", ["~DEFAULT_BRANCH"], {"type": "pull_request"})
    work = _clone(lab, tmp_path)
    before = heads(lab)
    _commit(tmp_path, work, lab)
    pushed = _git(
        tmp_path,
        "-c",
        "http.extraHeader=Host: rules.attacker.invalid:8080",
        "push",
        "origin",
        "HEAD:main",
        token=lab.token,
        cwd=work,
        ok=False,
    )
    assert "remote: - Changes must be made through a pull request." in pushed.stderr
    assert "could not be checked" not in pushed.stderr
    assert heads(lab) == before
