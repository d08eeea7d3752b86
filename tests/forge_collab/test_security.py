"""The forge's code security as GitHub has it: the demo's Dependabot, code scanning and
secret scanning alerts (list filters, get, dismiss and reopen with the reasons GitHub
accepts), a secret's locations and hide_secret, and advisories (global with filters,
repository, organisation; drafts only for administrators). The `forge` fixture validates
every recorded response, and request body, against GitHub's OpenAPI description."""

from __future__ import annotations

import base64

from .conftest import DEMO


def test_dependabot_alert_of_the_demo(forge, demo, demo_api):
    alerts = demo_api.get(f"/repos/{DEMO}/dependabot/alerts").json()
    assert [a["number"] for a in alerts] == [1]
    alert = demo_api.get(f"/repos/{DEMO}/dependabot/alerts/1").json()
    assert alert["dependency"]["manifest_path"] == "requirements.txt"
    assert alert["security_advisory"]["ghsa_id"] == "GHSA-x84v-xcm2-53pg"
    assert alert["security_vulnerability"]["first_patched_version"] == {"identifier": "2.20.0"}
    manifest = demo_api.get(
        f"/repos/{DEMO}/contents/requirements.txt", headers={"Accept": "application/vnd.github.raw"}
    )
    assert manifest.text == "requests==2.19.1\n"
    only_npm = demo_api.get(f"/repos/{DEMO}/dependabot/alerts", params={"ecosystem": "npm"})
    assert only_npm.json() == []
    fixed = demo_api.get(f"/repos/{DEMO}/dependabot/alerts", params={"state": "fixed,dismissed"})
    assert fixed.json() == []


def test_dismiss_needs_a_reason_from_githubs_list_and_reopen_clears_it(forge, demo, demo_api):
    url = f"/repos/{DEMO}/dependabot/alerts/1"
    assert demo_api.patch(url, json={"state": "dismissed"}).status_code == 422
    bad = demo_api.patch(url, json={"state": "dismissed", "dismissed_reason": "because"})
    assert bad.status_code == 422
    done = demo_api.patch(url, json={"state": "dismissed", "dismissed_reason": "tolerable_risk"})
    assert done.status_code == 200 and done.json()["dismissed_by"]["login"] == "octocat"
    assert demo_api.get(url).json()["state"] == "dismissed"
    reopened = demo_api.patch(url, json={"state": "open"}).json()
    assert reopened["state"] == "open" and reopened["dismissed_reason"] is None
    code = f"/repos/{DEMO}/code-scanning/alerts/1"
    ok = demo_api.patch(code, json={"state": "dismissed", "dismissed_reason": "won't fix"})
    assert ok.json()["dismissed_reason"] == "won't fix"
    secret = f"/repos/{DEMO}/secret-scanning/alerts/1"
    resolved = demo_api.patch(secret, json={"state": "resolved", "resolution": "revoked"})
    assert resolved.json()["resolution"] == "revoked"
    bob = forge.create_token("bob", user_roles=True)  # reads demo-app, cannot write
    refused = demo_api.patch(
        url,
        json={"state": "dismissed", "dismissed_reason": "inaccurate"},
        headers={"Authorization": f"token {bob}"},
    )
    assert refused.status_code == 403


def test_code_scanning_list_filters_and_rule_help(forge, demo, demo_api):
    url = f"/repos/{DEMO}/code-scanning/alerts"
    listed = demo_api.get(url, params={"state": "open", "tool_name": "CodeQL", "ref": "main"})
    assert [a["number"] for a in listed.json()] == [1]
    assert "help" not in listed.json()[0]["rule"]
    assert demo_api.get(url, params={"severity": "critical"}).json() == []
    alert = demo_api.get(f"{url}/1").json()
    assert alert["most_recent_instance"]["location"]["path"] == "src/demo_app/report.py"
    assert alert["rule"]["help"].startswith("# Unsafe shell command")


def test_secret_value_and_hide_secret_and_locations(forge, demo, demo_api):
    url = f"/repos/{DEMO}/secret-scanning/alerts/1"
    shown = demo_api.get(url).json()
    assert shown["secret"].startswith("AKIA")
    env = demo_api.get(
        f"/repos/{DEMO}/contents/config/dev.env", headers={"Accept": "application/vnd.github.raw"}
    )
    assert env.text == f"AWS_ACCESS_KEY_ID={shown['secret']}\n"
    assert "secret" not in demo_api.get(url, params={"hide_secret": "true"}).json()
    locations = demo_api.get(f"{url}/locations").json()
    assert locations[0]["details"]["path"] == "config/dev.env"


def test_advisories_global_repository_and_organisation(forge, demo, demo_api):
    every = demo_api.get("/advisories").json()
    assert {a["ghsa_id"] for a in every} == {"GHSA-x84v-xcm2-53pg", "GHSA-xvch-5gv4-984h"}
    by_cve = demo_api.get("/advisories", params={"cve_id": "CVE-2018-18074"}).json()
    assert [a["ghsa_id"] for a in by_cve] == ["GHSA-x84v-xcm2-53pg"]
    pip_high = demo_api.get("/advisories", params={"ecosystem": "pip", "severity": "high"})
    assert [a["ghsa_id"] for a in pip_high.json()] == ["GHSA-x84v-xcm2-53pg"]
    page = demo_api.get("/advisories", params={"per_page": 1})
    assert len(page.json()) == 1 and 'rel="next"' in page.headers["link"]
    assert demo_api.get("/advisories", params={"severity": "huge"}).status_code == 422
    repo = demo_api.get(f"/repos/{DEMO}/security-advisories").json()
    org = demo_api.get("/orgs/octo-org/security-advisories").json()
    assert [a["ghsa_id"] for a in repo] == [a["ghsa_id"] for a in org] == ["GHSA-2c4m-9xvw-r7qh"]
    assert demo_api.get("/orgs/nobody-here/security-advisories").status_code == 404


def test_a_patched_pin_on_the_default_branch_fixes_the_alert(forge, demo, demo_api):
    url = f"/repos/{DEMO}/contents/requirements.txt"

    def pin(version: str, branch: str) -> None:
        sha = demo_api.get(url, params={"ref": branch}).json()["sha"]
        body = {
            "message": f"requests {version}",
            "content": base64.b64encode(f"requests=={version}\n".encode()).decode(),
            "sha": sha,
            "branch": branch,
        }
        assert demo_api.put(url, json=body).status_code == 200

    alert = f"/repos/{DEMO}/dependabot/alerts/1"
    assert (
        demo_api.post(
            f"/repos/{DEMO}/git/refs",
            json={
                "ref": "refs/heads/bump",
                "sha": demo_api.get(f"/repos/{DEMO}/commits/main").json()["sha"],
            },
        ).status_code
        == 201
    )
    pin("2.20.0", "bump")  # not the default branch: still open
    assert demo_api.get(alert).json()["state"] == "open"
    pin("2.19.0", "main")  # still vulnerable
    assert demo_api.get(alert).json()["state"] == "open"
    pin("2.20.0", "main")
    fixed = demo_api.get(alert).json()
    assert fixed["state"] == "fixed" and fixed["fixed_at"] is not None
    listed = demo_api.get(f"/repos/{DEMO}/dependabot/alerts", params={"state": "fixed"})
    assert [a["number"] for a in listed.json()] == [1]
