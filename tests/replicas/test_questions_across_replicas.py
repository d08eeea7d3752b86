"""A question the server asks mid-call (form elicitation for an approval, protocol
2025-11-25) is answered through another replica: two `main.py serve` processes with
sessions sharing a real redis-server, raw MCP over HTTP so that each POST goes where the
test sends it (as a load balancer whose hash moved, or that has no affinity, would).

- The call runs on replica 0 and asks there; the client's answer is POSTed to replica 1,
  which relays it: an approval lands exactly once, a denial writes nothing (the forge's
  branch head and commit parents are the evidence).
- Another credential POSTing an answer with the question's id in the same session is
  refused as for an unknown session, and the call still waits for its own client.
- Replica 0 dies while its question is open: the answer sent to replica 1 is accepted,
  nothing is written, and the client's retry with the same idempotency key on replica 1
  asks again and writes once.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator
from typing import Any

import httpx2 as httpx
import pytest

from tests.approvals.conftest import branch_head, commit_parents
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import traversable
from tests.replicas.cluster import Cluster, Replica

TOKEN_A = "questions-owner-alpha-0123456789"
TOKEN_B = "questions-owner-bravo-0123456789"
PROTOCOL = "2025-11-25"


@pytest.fixture(scope="module")
def _shared_replicas(forge, forge_token, tmp_path_factory):
    tmp_path = tmp_path_factory.mktemp("replicas")
    cluster = Cluster(
        tmp_path,
        api_url=forge.base_url,
        token=forge_token,
        count=2,
        stateless=False,
        workspace_dir=traversable(tmp_path),
        extra_env={
            "GITHUB_MCP_AUTH_TOKENS": f"{TOKEN_A},{TOKEN_B}",
            "GITHUB_MCP_APPROVAL_MODE": "auto",
            # only bounds a failure: an answer that never arrives
            "GITHUB_MCP_APPROVAL_PROMPT_TIMEOUT_SECONDS": "120",
        },
    )
    yield cluster
    cluster.close()


@pytest.fixture
def two_replicas(_shared_replicas):
    """Two replicas shared by the module's tests, each with a session and a repository of
    its own; a replica a test killed is started again before the next test."""
    return _shared_replicas.revive()


def _headers(token: str, session: str | None) -> dict[str, str]:
    headers = {
        "Authorization": f"Bearer {token}",
        "Accept": "application/json, text/event-stream",
        "Content-Type": "application/json",
        "mcp-protocol-version": PROTOCOL,
    }
    if session is not None:
        headers["mcp-session-id"] = session
    return headers


async def _open(http: httpx.AsyncClient, url: str, token: str) -> str:
    opening = await http.post(
        url + "/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": PROTOCOL,
                "capabilities": {"elicitation": {"form": {}}},
                "clientInfo": {"name": "raw-question-client", "version": "1"},
            },
        },
        headers=_headers(token, None),
    )
    assert opening.status_code == 200, opening.text
    session = opening.headers["mcp-session-id"]
    done = await http.post(
        url + "/mcp",
        json={"jsonrpc": "2.0", "method": "notifications/initialized"},
        headers=_headers(token, session),
    )
    assert done.status_code == 202, done.text
    return session


async def _events(response: httpx.Response) -> AsyncIterator[dict[str, Any]]:
    async for line in response.aiter_lines():
        if line.startswith("data:") and line[5:].strip():
            yield json.loads(line[5:])


class Call:
    """A tools/call streamed from one replica: its question, then its answer."""

    def __init__(self, http: httpx.AsyncClient, url: str, session: str, args: dict, key: str):
        self.http, self.url, self.session = http, url, session
        self.body = {
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {
                "name": "commit_files",
                "arguments": args,
                "_meta": {"idempotency_key": key},
            },
        }
        self.questions: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
        self.task = asyncio.create_task(self._run())

    async def _run(self) -> dict[str, Any] | None:
        headers = _headers(TOKEN_A, self.session)
        async with self.http.stream(
            "POST", self.url + "/mcp", json=self.body, headers=headers
        ) as r:
            assert r.status_code == 200, await r.aread()
            async for message in _events(r):
                if message.get("method") == "elicitation/create":
                    await self.questions.put(message)
                elif message.get("id") == 7:
                    return message
        return None  # the stream ended without the answer (its replica died)


def _answer(question: dict[str, Any], value: str) -> dict[str, Any]:
    result = {"action": "accept", "content": {"value": value}}
    return {"jsonrpc": "2.0", "id": question["id"], "result": result}


async def _send(http: httpx.AsyncClient, url: str, token: str, session: str, body: dict):
    return await http.post(url + "/mcp", json=body, headers=_headers(token, session))


def _repo(forge) -> str:
    name = f"octo-org/questions-{uuid.uuid4().hex[:8]}"
    forge.seed_repo(name, {"README.md": "# demo\nline two\n"})
    return name


@pytest.mark.timeout(300)
async def test_an_answer_posted_to_another_replica_reaches_the_asking_call(two_replicas, forge):
    repo = _repo(forge)
    before = branch_head(forge, repo)
    asking, other = (r.url for r in two_replicas.replicas)
    relayed_before = _logged(two_replicas.replicas[1], "question_relayed")
    elsewhere_before = _logged(two_replicas.replicas[0], "question_answered_elsewhere")
    async with httpx.AsyncClient(timeout=180) as http:
        session = await _open(http, asking, TOKEN_A)

        denied = Call(
            http, asking, session, commit_args(repo, "# denied\n"), "q-" + uuid.uuid4().hex
        )
        question = await asyncio.wait_for(denied.questions.get(), 120)
        assert question["id"].startswith("srvq-")  # not the library's per-connection counter
        relayed = await _send(http, other, TOKEN_A, session, _answer(question, "deny"))
        assert relayed.status_code == 202, relayed.text
        answer = await asyncio.wait_for(denied.task, 120)
        assert answer is not None and answer["result"]["isError"] is True, answer
        assert answer["result"]["structuredContent"]["error"]["code"] == "write_not_allowed"
        assert branch_head(forge, repo) == before  # denied: nothing written

        approved = Call(http, asking, session, commit_args(repo), "q-" + uuid.uuid4().hex)
        question = await asyncio.wait_for(approved.questions.get(), 120)
        # another credential's answer in this session: as for an unknown session
        stranger = await _send(http, other, TOKEN_B, session, _answer(question, "approve"))
        assert stranger.status_code == 404, stranger.text
        assert not approved.task.done()
        relayed = await _send(http, other, TOKEN_A, session, _answer(question, "approve"))
        assert relayed.status_code == 202, relayed.text
        answer = await asyncio.wait_for(approved.task, 120)
    assert answer is not None and not answer["result"].get("isError"), answer
    after = branch_head(forge, repo)
    assert after != before and commit_parents(forge, repo, after) == [before]  # exactly once
    # this test's two answers, each relayed by the other replica to the asking one
    assert _logged(two_replicas.replicas[1], "question_relayed") == relayed_before + 2
    assert _logged(two_replicas.replicas[0], "question_answered_elsewhere") == elsewhere_before + 2


def _logged(replica: Replica, event: str) -> int:
    """How many times the replica's log (every life of it) has logged `event`."""
    return replica.log.read_text(errors="replace").count(f'"event": "{event}"')


@pytest.mark.timeout(300)
async def test_the_asking_replica_dies_then_the_retry_asks_again_and_writes_once(
    two_replicas, forge
):
    repo = _repo(forge)
    before = branch_head(forge, repo)
    asking, other = (r.url for r in two_replicas.replicas)
    key = "q-" + uuid.uuid4().hex
    async with httpx.AsyncClient(timeout=180) as http:
        session = await _open(http, asking, TOKEN_A)
        first = Call(http, asking, session, commit_args(repo), key)
        question = await asyncio.wait_for(first.questions.get(), 120)
        two_replicas.replicas[0].kill()
        await asyncio.gather(first.task, return_exceptions=True)  # its stream ends with it
        late = await _send(http, other, TOKEN_A, session, _answer(question, "approve"))
        assert late.status_code == 202, late.text  # stored for a replica that is gone
        assert branch_head(forge, repo) == before  # the call died before its write

        retry = Call(http, other, session, commit_args(repo), key)
        again = await asyncio.wait_for(retry.questions.get(), 120)
        assert again["id"] != question["id"]
        answered = await _send(http, other, TOKEN_A, session, _answer(again, "approve"))
        assert answered.status_code == 202, answered.text
        answer = await asyncio.wait_for(retry.task, 120)
    assert answer is not None and not answer["result"].get("isError"), answer
    after = branch_head(forge, repo)
    assert after != before and commit_parents(forge, repo, after) == [before]  # exactly once
