"""Code security tools through a real MCP client against the forge: the demo's Dependabot,
code scanning and secret scanning alerts, advisories (global, repository, organisation),
dismissing and reopening (an unscoped write: a human approves; the reason must be one GitHub
takes), the allow-list, and the secret's value, which no output may carry. Evidence comes
from the forge's alert records and request log; every request and response is checked
against GitHub's OpenAPI description."""

from __future__ import annotations

import json

from sandbox_forge.admin.demo_security import seed_repo_alerts
from sandbox_forge.stores import security
from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client, settled_requests
from tests.forge.contract import validate_records, validate_request_bodies
from tests.test_tools_write import new_repo, write_requests

PATHS = ("/dependabot/", "/code-scanning/", "/secret-scanning/", "advisories")
ALERT_FILES = {
    "requirements.txt": "requests==2.19.1\n",
    "src/demo_app/report.py": "import subprocess\n\nsubprocess.run('wc ' + p, shell=True)\n",
}


def check_contract(forge) -> None:
    records = [r for r in forge.responses() if any(p in r["path"] for p in PATHS)]
    assert records, "no requests recorded"
    assert validate_records(records) == []
    assert validate_request_bodies(records) == []


def alert_repo(forge, secret: str = "AKIA" + "0" * 16, prefix: str = "sec-org") -> str:
    """A fresh repository with an alert of each kind (number 1 each) and an advisory."""
    files = ALERT_FILES | {"config/dev.env": f"AWS_ACCESS_KEY_ID={secret}\n"}
    repo = new_repo(forge, files=files, prefix=prefix)
    seed_repo_alerts(forge, repo)
    return repo


def record(forge, repo: str, kind: str, number: int = 1) -> security.Alert:
    owner, name = repo.split("/")
    found = forge.state.repo(owner, name)
    assert found is not None
    return security.alerts(found, kind)[number]


async def test_alerts_of_each_kind_on_the_demo(make_runtime, forge):
    forge.clear_responses()
    demo = forge.state.repo(*DEMO_REPO.split("/"))
    seeded = security.alerts(demo, "dependabot")[1]
    async with mcp_client(make_runtime()) as client:
        calls = {
            kind: await call_tool(
                client, "list_security_alerts", {"full_name": DEMO_REPO, "kind": kind}
            )
            for kind in ("dependabot", "code_scanning", "secret_scanning")
        }
        _, dep = await call_tool(
            client,
            "get_security_alert",
            {"full_name": DEMO_REPO, "kind": "dependabot", "number": 1},
        )
        _, code = await call_tool(
            client,
            "get_security_alert",
            {"full_name": DEMO_REPO, "kind": "code_scanning", "number": 1},
        )
        _, npm = await call_tool(
            client,
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "dependabot", "ecosystem": "npm"},
        )
        _, codeql = await call_tool(
            client,
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "code_scanning", "tool": "CodeQL", "ref": "main"},
        )
        _, wrong = await call_tool(
            client,
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "dependabot", "tool": "CodeQL"},
        )
        _, missing = await call_tool(
            client,
            "get_security_alert",
            {"full_name": DEMO_REPO, "kind": "dependabot", "number": 99},
        )
    assert all(not failed for failed, _ in calls.values())
    assert [a["number"] for a in calls["dependabot"][1]["alerts"]] == [1]
    assert calls["dependabot"][1]["alerts"][0]["where"] == "requests in requirements.txt"
    assert seeded.advisory is not None
    assert dep["dependency"] == {
        "package": "requests",
        "ecosystem": "pip",
        "manifest_path": seeded.manifest,
        "scope": "runtime",
        "vulnerable_range": seeded.advisory.vulnerable_range,
        "patched_version": "2.20.0",
        "ghsa_id": "GHSA-x84v-xcm2-53pg",
        "cve_id": "CVE-2018-18074",
    }
    detail = code["code_scanning"]
    assert detail["path"] == "src/demo_app/report.py" and detail["tool"] == "CodeQL"
    assert detail["help"].startswith("# Unsafe shell command") and detail["start_line"] > 0
    assert npm["alerts"] == [] and [a["number"] for a in codeql["alerts"]] == [1]
    assert error_code(wrong) == "invalid_input" and "tool" in wrong["error"]["message"]
    assert error_code(missing) == "not_found"
    check_contract(forge)


async def test_no_output_of_a_secret_scanning_tool_holds_the_secret(make_runtime, forge):
    secret = "AKIA" + "Q7Z3" * 4
    repo = alert_repo(forge, secret)
    assert record(forge, repo, "secret-scanning").secret == secret
    outputs: list[str] = []
    used: set[str] = set()
    rt = make_runtime(auto_approve=True)
    async with mcp_client(rt) as client:
        tools = {t.name: t for t in await client.list_tools()}
        takes_kind = {n for n, t in tools.items() if "secret_scanning" in json.dumps(t.inputSchema)}
        calls = [
            ("list_security_alerts", {}),
            ("list_security_alerts", {"state": "open"}),
            ("get_security_alert", {"number": 1}),
            ("set_security_alert_state", {"number": 1, "state": "dismissed", "reason": "revoked"}),
            ("set_security_alert_state", {"number": 1, "state": "open"}),
        ]
        for name, args in calls:
            used.add(name)
            result = await client.call_tool(
                name, {"full_name": repo, "kind": "secret_scanning", **args}, raise_on_error=False
            )
            assert not result.is_error, result.structured_content
            outputs.append(json.dumps(result.structured_content))
            outputs += [getattr(part, "text", "") for part in result.content]
    assert takes_kind <= used, f"secret-scanning tools not called: {takes_kind - used}"
    assert all(secret not in text for text in outputs)
    assert any('"secret_type": "aws_access_key_id"' in text for text in outputs)
    # GitHub was asked to hide it on every read of the alert
    reads = [r for r in settled_requests(forge) if "/secret-scanning/alerts" in r["path"]]
    gets = [r for r in reads if r["method"] == "GET" and not r["path"].endswith("/locations")]
    assert gets and all("hide_secret=true" in r.get("query", "") for r in gets)


async def test_dismissing_needs_a_human_and_a_reason_github_takes(make_runtime, forge):
    repo = alert_repo(forge)
    args = {"full_name": repo, "kind": "dependabot", "number": 1}
    async with mcp_client(make_runtime()) as client:
        forge.clear_requests()
        _, refused = await call_tool(
            client, "set_security_alert_state", args | {"state": "dismissed", "reason": "not_used"}
        )
        assert write_requests(forge) == []
    assert error_code(refused) == "write_not_allowed"
    assert record(forge, repo, "dependabot").state == "open"

    forge.clear_responses()
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        _, no_reason = await call_tool(
            client, "set_security_alert_state", args | {"state": "dismissed"}
        )
        _, wrong_kind = await call_tool(
            client, "set_security_alert_state", args | {"state": "dismissed", "reason": "won't fix"}
        )
        assert write_requests(forge) == []
        _, dismissed = await call_tool(
            client,
            "set_security_alert_state",
            args | {"state": "dismissed", "reason": "tolerable_risk", "comment": "dev only"},
        )
        stored = record(forge, repo, "dependabot")
        assert (stored.state, stored.dismissed_reason, stored.dismissed_comment) == (
            "dismissed",
            "tolerable_risk",
            "dev only",
        )
        _, code = await call_tool(
            client,
            "set_security_alert_state",
            {
                "full_name": repo,
                "kind": "code_scanning",
                "number": 1,
                "state": "dismissed",
                "reason": "won't fix",
            },
        )
        _, reopened = await call_tool(client, "set_security_alert_state", args | {"state": "open"})
    assert (
        error_code(no_reason) == "invalid_input" and "tolerable_risk" in no_reason["error"]["hint"]
    )
    assert error_code(wrong_kind) == "invalid_input"
    assert dismissed["summary"]["state"] == "dismissed" and dismissed["dismissed_by"] == "octocat"
    assert code["dismissed_reason"] == "won't fix"
    assert record(forge, repo, "code-scanning").state == "dismissed"
    assert reopened["summary"]["state"] == "open"
    assert record(forge, repo, "dependabot").state == "open"
    check_contract(forge)


async def test_advisories_global_repository_and_organisation(make_runtime, forge):
    forge.clear_responses()
    async with mcp_client(make_runtime()) as client:
        _, by_cve = await call_tool(client, "list_global_advisories", {"cve_id": "CVE-2018-18074"})
        _, pip_high = await call_tool(
            client, "list_global_advisories", {"ecosystem": "pip", "severity": "high"}
        )
        _, first = await call_tool(client, "list_global_advisories", {"limit": 1})
        _, second = await call_tool(
            client, "list_global_advisories", {"limit": 1, "cursor": first["next_cursor"]}
        )
        _, repo = await call_tool(client, "list_repository_advisories", {"full_name": DEMO_REPO})
        _, org = await call_tool(client, "list_repository_advisories", {"org": "octo-org"})
        _, both = await call_tool(
            client, "list_repository_advisories", {"org": "octo-org", "full_name": DEMO_REPO}
        )
    requests_advisory = by_cve["advisories"]
    assert [a["ghsa_id"] for a in requests_advisory] == ["GHSA-x84v-xcm2-53pg"]
    assert requests_advisory[0]["packages"] == [
        {
            "ecosystem": "pip",
            "name": "requests",
            "vulnerable_range": "<= 2.19.1",
            "patched": "2.20.0",
        }
    ]
    assert [a["ghsa_id"] for a in pip_high["advisories"]] == ["GHSA-x84v-xcm2-53pg"]
    paged = {a["ghsa_id"] for a in first["advisories"] + second["advisories"]}
    assert len(paged) == 2 and second.get("next_cursor") is None
    assert [a["repository"] for a in repo["advisories"]] == [DEMO_REPO]
    assert DEMO_REPO in [a["repository"] for a in org["advisories"]]
    assert error_code(both) == "invalid_input"
    check_contract(forge)


async def test_the_allow_list_applies(make_runtime, forge):
    outside = alert_repo(forge, prefix="octo-org")  # an octo-org repository not allowed
    rt = make_runtime(auto_approve=True, repo_allowlist=DEMO_REPO)
    async with mcp_client(rt) as client:
        forge.clear_requests()
        _, listed = await call_tool(
            client, "list_security_alerts", {"full_name": outside, "kind": "dependabot"}
        )
        _, write = await call_tool(
            client,
            "set_security_alert_state",
            {
                "full_name": outside,
                "kind": "dependabot",
                "number": 1,
                "state": "dismissed",
                "reason": "not_used",
            },
        )
        touched = [r for r in settled_requests(forge) if outside in r["path"]]
        _, org = await call_tool(client, "list_repository_advisories", {"org": "octo-org"})
    assert error_code(listed) == error_code(write) == "repo_not_allowed"
    assert touched == []
    assert record(forge, outside, "dependabot").state == "open"
    assert [a["repository"] for a in org["advisories"]] == [DEMO_REPO]


async def test_hostile_arguments_are_refused_before_any_request(make_runtime, forge):
    cases = [
        ("list_security_alerts", {"full_name": DEMO_REPO, "kind": "npm_audit"}),
        ("list_security_alerts", {"full_name": DEMO_REPO, "kind": "dependabot", "package": "a,b"}),
        (
            "list_security_alerts",
            {"full_name": DEMO_REPO, "kind": "secret_scanning", "ref": "main"},
        ),
        ("get_security_alert", {"full_name": DEMO_REPO, "kind": "dependabot", "number": 0}),
        ("get_security_alert", {"full_name": "../etc", "kind": "dependabot", "number": 1}),
        ("list_global_advisories", {"cve_id": "CVE-1; DROP"}),
        ("list_global_advisories", {"ghsa_id": "GHSA-aaaa-bbbb-cccc"}),
        ("list_repository_advisories", {}),
        ("list_repository_advisories", {"org": "../octo-org"}),
        (
            "set_security_alert_state",
            {
                "full_name": DEMO_REPO,
                "kind": "dependabot",
                "number": 1,
                "state": "open",
                "reason": "not_used",
            },
        ),
        (
            "set_security_alert_state",
            {
                "full_name": DEMO_REPO,
                "kind": "secret_scanning",
                "number": 1,
                "state": "dismissed",
                "reason": "x",
            },
        ),
    ]
    async with mcp_client(make_runtime(auto_approve=True)) as client:
        forge.clear_requests()
        answers = [(name, await call_tool(client, name, args)) for name, args in cases]
        reached = [r for r in settled_requests(forge) if any(p in r["path"] for p in PATHS)]
    for name, (failed, payload) in answers:
        assert failed, name
        assert error_code(payload) == "invalid_input", (name, payload)
    assert reached == []


async def test_lists_keep_what_raised_each_alert_and_filter_secrets(make_runtime, forge):
    repo = alert_repo(forge)
    secret = record(forge, repo, "secret-scanning")
    with forge.state.lock:  # a second secret alert, resolved as revoked
        second = security.Alert(
            0, "secret-scanning", secret_type="github_personal_access_token",
            secret_type_display_name="GitHub Personal Access Token", secret="ghp_" + "x" * 36,
            commit_sha=secret.commit_sha, blob_sha=secret.blob_sha, path=secret.path,
            start_line=secret.start_line, end_line=secret.end_line,
        )  # fmt: skip
    security.add_alert(forge.state, forge.state.repo(*repo.split("/")), second)
    second.state, second.dismissed_reason = "resolved", "revoked"
    forge.clear_responses()
    async with mcp_client(make_runtime()) as client:

        async def listed(**filters):
            _, page = await call_tool(
                client, "list_security_alerts", {"full_name": repo, **filters}
            )
            return page

        code = await listed(kind="code_scanning")
        dependabot = await listed(kind="dependabot")
        aws = await listed(kind="secret_scanning", secret_type="aws_access_key_id")
        revoked = await listed(kind="secret_scanning", resolution="revoked")
        both = await listed(
            kind="secret_scanning", secret_type="aws_access_key_id,github_personal_access_token"
        )
        wrong = await listed(kind="dependabot", resolution="revoked")
        bad_type = await listed(kind="secret_scanning", secret_type="a b")
    (alert,) = code["alerts"]
    assert (alert["rule_id"], alert["tool"]) == (
        "py/shell-command-constructed-from-input",
        "CodeQL",
    )
    assert dependabot["alerts"][0]["rule_id"] == "GHSA-x84v-xcm2-53pg"
    assert [(a["number"], a["rule_id"]) for a in aws["alerts"]] == [(1, "aws_access_key_id")]
    assert [(a["number"], a["resolution"]) for a in revoked["alerts"]] == [(2, "revoked")]
    assert {a["number"] for a in both["alerts"]} == {1, 2}
    assert error_code(wrong) == error_code(bad_type) == "invalid_input"
    sent = [r["query"] for r in forge.responses() if "secret-scanning" in r["path"]]
    assert any("resolution=revoked" in q for q in sent) and all(
        "hide_secret=true" in q for q in sent
    )
