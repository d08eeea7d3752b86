"""The forge's self-check (sandbox_forge/contract/monitor.py) is on for every forge of the
test run and bites: a REST answer unlike its operation's schema, or a GraphQL answer unlike
GitHub's schema, is recorded with its route and fails the test that received it; a forge
asked to check without GitHub's descriptions refuses to start."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path
from urllib.parse import urlsplit

import pytest

from sandbox_forge import Forge
from sandbox_forge.contract import monitor
from sandbox_forge.contract.graphql_answers import AnswerChecker, load_schema
from tests import forge_contract

REF = "/repos/octocat/hello/git/ref/heads/main"


def test_every_forge_of_the_run_checks_itself(forge):
    assert forge.state.contract is not None
    assert Path(os.environ[monitor.ENV_DIR]) == forge_contract.MINE
    with Forge() as fresh:  # one started by a test on its own checks itself too
        assert fresh.state.contract is not None


def test_a_forge_told_to_check_without_the_descriptions_refuses_to_start(tmp_path, monkeypatch):
    monkeypatch.setenv(monitor.ENV_OPENAPI, str(tmp_path / "absent.json"))
    with pytest.raises(monitor.ContractUnavailable, match="OpenAPI description is missing"):
        Forge()
    monkeypatch.delenv(monitor.ENV_GRAPHQL)
    with pytest.raises(monitor.ContractUnavailable, match=monitor.ENV_GRAPHQL):
        Forge()


def _monitor(tmp_path: Path) -> monitor.ContractMonitor:
    return monitor.ContractMonitor(tmp_path, forge_contract.OPENAPI, forge_contract.GRAPHQL)


def _lines(tmp_path: Path, kind: str) -> list[dict]:
    return [
        json.loads(line)
        for path in tmp_path.glob(f"*.{kind}.jsonl")
        for line in path.read_text().splitlines()
    ]


def test_a_rest_answer_unlike_its_schema_is_recorded_with_its_route(tmp_path):
    watch = _monitor(tmp_path)
    bad = json.dumps({"ref": "refs/heads/main", "node_id": "x", "url": "http://h/x"}).encode()
    watch.rest("GET", REF, 200, "application/json; charset=utf-8", bad)
    watch.rest("GET", REF, 200, "application/json; charset=utf-8", bad)  # once is enough
    watch.rest("GET", "/user", 500, "application/json", b'{"message":"Server Error"}', "Boom")
    found = _lines(tmp_path, "violations")
    assert [v["route"] for v in found] == [
        "GET /repos/{owner}/{repo}/git/ref/{ref}",
        "GET /user",
    ]
    assert "'object' is a required property" in found[0]["problem"]
    assert "the forge failed (Boom)" in found[1]["problem"]
    reached = {r["what"] for r in _lines(tmp_path, "reached")}
    assert {"GET /repos/{owner}/{repo}/git/ref/{ref} 200", "GET /user 500"} <= reached


def test_a_test_whose_forge_answered_unlike_github_fails(tmp_path):
    findings = forge_contract.Findings(tmp_path, "violations")
    forge_contract.fail_on_new(findings)  # nothing recorded: passes
    watch = _monitor(tmp_path)
    watch.rest("GET", "/rate_limit", 200, "application/json", b'{"resources": 5}')
    with pytest.raises(pytest.fail.Exception, match=r"GET /rate_limit: .*resources"):
        forge_contract.fail_on_new(findings)
    forge_contract.fail_on_new(findings)  # each mismatch fails one test, not every later one


@pytest.fixture(scope="module")
def github() -> AnswerChecker:
    return AnswerChecker(load_schema(forge_contract.GRAPHQL.read_text()))


VIEWER = "query { viewer { login createdAt } rateLimit { remaining resetAt } }"


def test_a_graphql_answer_is_walked_against_githubs_types(github):
    good = {"viewer": {"login": "octocat", "createdAt": "2024-01-02T03:04:05Z"},
            "rateLimit": {"remaining": 4999, "resetAt": "2024-01-02T04:04:05Z"}}  # fmt: skip
    assert github.check({"query": VIEWER}, {"data": good}) == []
    assert "Query.viewer" in github.reached and "User.login" in github.reached
    wrong = {"viewer": {"login": None, "createdAt": "yesterday"}, "rateLimit": None}
    problems = github.check({"query": VIEWER}, {"data": wrong})
    assert any("viewer.login: null" in p for p in problems)
    assert any("'yesterday' is not a DateTime" in p for p in problems)
    missing = github.check({"query": VIEWER}, {"data": {"viewer": {"login": "o"}}})
    assert any("createdAt: selected but missing" in p for p in missing)


def test_graphql_documents_and_variables_github_refuses_must_be_refused(github):
    unknown = {"query": "{ viewer { noSuchField } }"}
    assert github.check(unknown, {"errors": [{"message": "no such field"}]}) == []
    assert any("rejects" in p for p in github.check(unknown, {"data": {"viewer": {}}}))
    query = "query($n: Int!) { viewer { repositories(first: $n) { totalCount } } }"
    no_variable = {"query": query, "variables": {}}
    assert github.check(no_variable, {"errors": [{"message": "Variable $n"}]}) == []
    data = {"viewer": {"repositories": {"totalCount": 1}}}
    answered = github.check(no_variable, {"data": data})
    assert any("refuses these variables" in p for p in answered)
    accepted = github.check({"query": VIEWER}, {"errors": [{"message": "forbidden"}]})
    assert any("accepts this document; refused" in p for p in accepted)
    shaped = github.check({"query": VIEWER}, {"data": None, "errors": [{"text": "x"}]})
    assert any("no message" in p for p in shaped)


def test_a_client_gone_before_its_request_was_read_is_no_finding(forge):
    """Under load a client may give up mid-request: the forge answers nobody, so that is
    no answer to hold to GitHub's description (it was once reported as a forge failure)."""
    where = urlsplit(forge.base_url)
    token = forge.create_token("octocat", access="write", kind="classic")
    forge.clear_responses()
    with socket.create_connection((where.hostname, where.port)) as sock:
        sock.sendall(
            b"POST /user/repos HTTP/1.1\r\nHost: forge\r\nAuthorization: Bearer "
            + token.encode()
            + b'\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"na'
        )
    bound = time.monotonic() + 120  # bounds a hang only: the forge handles it at once
    while not [r for r in forge.responses() if r["path"] == "/user/repos"]:
        assert time.monotonic() < bound, "the forge never finished the abandoned request"
        time.sleep(0.05)
    (gone,) = [r for r in forge.responses() if r["path"] == "/user/repos"]
    assert gone["status"] == 499
    assert forge_contract.VIOLATIONS.new() == []
    assert not [p for p in forge.state.all_repos() if p.full_name.startswith("octocat/na")]
