"""The fault matrix of the suite (tests/reliability/test_fault_matrix.py), run at once and
printed as a table: every write tool x every request it makes x every fault kind the
forge injects, with each cell's outcome judged from the forge's state.

An in-process sandbox forge is used (the cells read its refs, pull requests and comments
directly). Exit status 1 when any cell is neither "exactly once" nor a clean error.

    python bench/fault_matrix.py [--tools commit_files,create_branch] [--faults 502,422]
                                 [--detail]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for _name in list(os.environ):
    if _name.startswith(("GITHUB_", "GH_")):
        del os.environ[_name]
os.environ.setdefault("FASTMCP_LOG_ENABLED", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ["GITHUB_MCP_LOG_LEVEL"] = "WARNING"

from github_mcp.config import Settings  # noqa: E402
from github_mcp.pipeline.runtime import Runtime  # noqa: E402
from sandbox_forge import Forge  # noqa: E402
from tests.reliability.fault_matrix import CASES, FAULT_KINDS, CellResult, run_tool, table  # noqa: E402


async def main(tools: list[str], faults: list[str], detail: bool) -> int:
    forge = Forge()
    forge.start()
    token = forge.create_token(login="octocat")
    results: list[CellResult] = []
    runtimes: list[Runtime] = []
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="fault-matrix-") as tmp:

        def make_runtime() -> Runtime:
            settings = Settings(
                github_api_url=forge.base_url,
                github_token=token,
                auto_approve=True,
                audit_log=Path(tmp) / "audit.jsonl",
                workspace_dir=Path(tmp) / "workspaces",
            )
            rt = Runtime.create(settings, retry_base_delay=0.01)
            runtimes.append(rt)
            return rt

        try:
            for tool in tools:
                results += await run_tool(forge, tool, make_runtime, faults)
        finally:
            for rt in runtimes:
                await rt.aclose()
            forge.stop()
    elapsed = time.perf_counter() - started
    print(table(results))
    print(f"({elapsed:.0f} s)")
    bad = [r for r in results if not r.accepted]
    if detail or bad:
        print()
        for r in results if detail else bad:
            print(f"{r.tool:30} {r.request:42} {r.fault:14} {r.outcome} {r.detail}")
    return 1 if bad else 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tools", default=",".join(CASES))
    parser.add_argument("--faults", default=",".join(FAULT_KINDS))
    parser.add_argument("--detail", action="store_true", help="print every cell")
    args = parser.parse_args()
    sys.exit(asyncio.run(main(args.tools.split(","), args.faults.split(","), args.detail)))
