"""The admin API, the demo seed, snapshots, and the command line."""

from __future__ import annotations

import base64
import json
import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import httpx2
import pytest

from sandbox_forge import Forge
from sandbox_forge.admin.seed import DEMO_REPO, seed_demo

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def admin(forge):
    with httpx2.Client(
        base_url=f"{forge.base_url}/_sandbox",
        headers={"Authorization": f"Bearer {forge.admin_token}"},
        timeout=10,
    ) as client:
        yield client


def test_admin_api_requires_the_admin_token(forge):
    assert httpx2.get(f"{forge.base_url}/_sandbox").status_code == 401
    user_token = forge.create_token()
    wrong = httpx2.get(
        f"{forge.base_url}/_sandbox", headers={"Authorization": f"Bearer {user_token}"}
    )
    assert wrong.status_code == 401
    ok = httpx2.get(f"{forge.base_url}/_sandbox", headers={"X-Sandbox-Admin": forge.admin_token})
    assert ok.status_code == 200


def test_admin_seeds_repositories_and_mints_tokens(forge, admin):
    created = admin.post(
        "/repos",
        json={
            "full_name": "acme/widgets",
            "files": {"README.md": "# widgets\n"},
            "files_base64": {"bin/blob": base64.b64encode(b"\x00\x01").decode()},
            "private": True,
            "branches": {"dev": {"README.md": "# dev\n"}},
        },
    )
    assert created.status_code == 201
    assert set(created.json()["branches"]) == {"main", "dev"}
    token = admin.post("/tokens", json={"login": "wile", "access": "read"}).json()["token"]
    assert token.startswith("ghp_")
    with httpx2.Client(base_url=forge.base_url, headers={"Authorization": f"token {token}"}) as api:
        raw = api.get(
            "/repos/acme/widgets/contents/bin/blob",
            headers={"Accept": "application/vnd.github.raw"},
        )
        assert raw.content == b"\x00\x01"
        assert api.get("/user").json()["login"] == "wile"


def test_admin_seeds_from_a_directory(forge, admin, tmp_path):
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg/mod.py").write_text("X = 1\n")
    script = tmp_path / "run.sh"
    script.write_text("#!/bin/sh\n")
    script.chmod(0o755)
    (tmp_path / ".git").mkdir()
    (tmp_path / ".git/HEAD").write_text("ignored\n")
    admin.post("/repos", json={"full_name": "acme/imported", "source_dir": str(tmp_path)})
    token = forge.create_token("acme")
    with httpx2.Client(base_url=forge.base_url, headers={"Authorization": f"token {token}"}) as api:
        tree = api.get("/repos/acme/imported/git/trees/main?recursive=1").json()["tree"]
    modes = {e["path"]: e["mode"] for e in tree if e["type"] == "blob"}
    assert modes == {"pkg/mod.py": "100644", "run.sh": "100755"}


def test_admin_faults_requests_rate_limit_and_settings(forge, admin):
    rule = admin.post("/faults", json={"path": "/user", "status": 503, "times": 1}).json()
    assert admin.get("/faults").json()[0]["id"] == rule["id"]
    token = forge.create_token()
    headers = {"Authorization": f"token {token}"}
    assert httpx2.get(f"{forge.base_url}/user", headers=headers).status_code == 503
    assert admin.post("/faults", json={"path": "(", "status": 500}).status_code == 422
    log = admin.get("/requests").json()
    assert [(e["path"], e["status"]) for e in log] == [("/user", 503)]
    assert admin.delete("/requests").status_code == 204
    assert admin.get("/requests").json() == []
    admin.post("/rate_limit", json={"remaining": 0})
    assert httpx2.get(f"{forge.base_url}/user", headers=headers).status_code == 403
    settings = admin.patch("/settings", json={"latency_ms": 5, "tree_truncate_limit": 10}).json()
    assert settings["latency_ms"] == 5 and forge.state.tree_truncate_limit == 10


def test_snapshot_copies_repositories_and_state(forge, tmp_path):
    forge.seed_repo("acme/snap", {"a.txt": "a\n"})
    forge.create_token("acme")
    state_file = forge.snapshot(tmp_path / "snap")
    data = json.loads(state_file.read_text())
    assert [r["name"] for r in data["repos"]] == ["snap"]
    assert any(t["login"] == "acme" for t in data["tokens"])
    copied = tmp_path / "snap/repos/acme/snap.git"
    out = subprocess.run(
        ["git", f"--git-dir={copied}", "show", "main:a.txt"], capture_output=True, text=True
    )
    assert out.stdout == "a\n"


def test_demo_seed_is_realistic(forge):
    summary = seed_demo(forge)
    assert summary["full_name"] == DEMO_REPO
    assert "feature/multiply" in summary["branches"]
    token = forge.create_token("octocat")
    with httpx2.Client(base_url=forge.base_url, headers={"Authorization": f"token {token}"}) as api:
        tree = api.get(f"/repos/{DEMO_REPO}/git/trees/main?recursive=1").json()["tree"]
        sizes = {e["path"]: e.get("size") for e in tree}
        logo = api.get(
            f"/repos/{DEMO_REPO}/contents/assets/logo.png",
            headers={"Accept": "application/vnd.github.raw"},
        ).content
        gitignore = api.get(
            f"/repos/{DEMO_REPO}/contents/.gitignore",
            headers={"Accept": "application/vnd.github.raw"},
        ).text
    assert logo.startswith(b"\x89PNG\r\n\x1a\n")
    assert sizes["data/large.csv"] > 200 * 1024
    assert {"tests/test_calc.py", "web/src/format.test.js", "web/.gitignore"} <= set(sizes)
    assert "!keep.log" in gitignore


def test_context_manager_starts_and_stops(tmp_path):
    with Forge(data_dir=tmp_path / "data") as forge:
        url = forge.base_url
        assert httpx2.get(f"{url}/rate_limit").status_code == 200
    with pytest.raises(httpx2.TransportError):
        httpx2.get(f"{url}/rate_limit", timeout=2)
    assert (tmp_path / "data/repos").is_dir()  # a given data_dir is kept


def test_temporary_data_dir_is_removed_on_stop():
    forge = Forge()
    forge.start()
    data = forge.data_dir
    assert data.is_dir()
    forge.stop()
    assert not data.exists()


def test_cli_serves_the_demo_until_terminated():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "sandbox_forge", "--port", "0", "--seed", "demo"],
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = [proc.stdout.readline() for _ in range(5)]
        text = "".join(lines)
        base_url = re.search(r"listening on (http://\S+)", text)[1]
        token = re.search(r"user token:\s+(\S+)", text)[1]
        assert re.search(r"admin token:\s+sbx_admin_\w+", text)
        repo = httpx2.get(
            f"{base_url}/repos/{DEMO_REPO}", headers={"Authorization": f"token {token}"}
        )
        assert repo.status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        code = proc.wait(timeout=15)
    assert code == 0


def test_cli_reports_a_busy_port(forge):
    from sandbox_forge.cli import main

    port = int(forge.base_url.rsplit(":", 1)[1])
    assert main(["--port", str(port)]) == 1
