"""Benchmark workspace clones and warm test runs on the sandbox forge.

Builds a repository with >= 5 000 files at the tip and >= 50 MB of history (several
commits rewriting files with incompressible content, written through `git fast-import`),
pushes it into a started sandbox `Forge` over git smart HTTP with a token, then drives the
real MCP tools (fastmcp's in-memory Client, as the tests do) against that forge:

- the first `ensure_workspace_clone` (blobless, over HTTP) into a fresh workspace, each
  with a fresh runtime, against raw `git clone --filter=blob:none` and a full clone;
- a warm `ensure_workspace_clone` (fetch) on the same runtime;
- a second and later `run_tests` on the warm clone, against the same command run directly
  in the clone: the overhead beyond the command itself should be <= 1 s median. Cases:
  unittest (summary lines), pytest (JUnit report), pytest with `.venv-mcp` on PATH.

The workspace ref is a branch, not the default one, so no write approval is involved.

    python bench/workspace_clone.py [--files 5000] [--rewrites 6] [--runs 7] [--clones 3]
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
for _name in list(os.environ):
    if _name.startswith(("GITHUB_", "GH_")):
        del os.environ[_name]
os.environ.setdefault("FASTMCP_LOG_ENABLED", "false")
os.environ.setdefault("FASTMCP_SHOW_SERVER_BANNER", "false")
os.environ["GITHUB_MCP_LOG_LEVEL"] = "WARNING"

from fastmcp import Client  # noqa: E402

from github_mcp.config import Settings  # noqa: E402
from github_mcp.pipeline.runtime import Runtime  # noqa: E402
from github_mcp.serving.server import build_mcp  # noqa: E402
from sandbox_forge import Forge  # noqa: E402

TARGET_OVERHEAD_S = 1.0
REPO = "bench-org/big"
BRANCH = "work"  # the workspace ref; the default branch would need write approval
TEST_FILE = (
    "import unittest\n\n\nclass Fast(unittest.TestCase):\n"
    "    def test_one(self):\n        self.assertEqual(1 + 1, 2)\n\n"
    "    def test_two(self):\n        self.assertTrue(True)\n\n\n"
    "def test_pytest_style():\n    assert True\n"
)


def build_local(path: Path, files: int, rewrites: int, rewrite_files: int, size: int) -> Path:
    """fast-import: one commit of `files` small text files, then incompressible rewrites."""
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(path)], check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=path, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    out = proc.stdin
    when = 1_700_000_000

    def commit(message: str, blobs: dict[str, bytes]) -> None:
        nonlocal when
        when += 60
        msg = message.encode()
        out.write(b"commit refs/heads/main\n")
        out.write(f"committer Bench <bench@example.com> {when} +0000\n".encode())
        out.write(f"data {len(msg)}\n".encode() + msg + b"\n")
        for name, data in blobs.items():
            out.write(f"M 100644 inline {name}\ndata {len(data)}\n".encode() + data + b"\n")
        out.write(b"\n")

    initial = {
        f"pkg{i % 100:03d}/mod{i:05d}.py": f"VALUE_{i} = {i}\n".encode() * 20 for i in range(files)
    }
    initial["tests_bench/__init__.py"] = b""
    initial["tests_bench/test_fast.py"] = TEST_FILE.encode()
    commit("initial", initial)
    for r in range(rewrites):
        # The same paths every time: history grows, the tip stays small.
        blobs = {f"data/blob{j:05d}.bin": os.urandom(size) for j in range(rewrite_files)}
        blobs.update({f"pkg{j:03d}/mod{j:05d}.py": f"REV = {r}\n".encode() for j in range(50)})
        commit(f"rewrite {r}", blobs)
    out.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")
    subprocess.run(["git", "gc", "-q"], cwd=path, check=True)
    return path


def git_env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "HOME": str(home),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_ASKPASS": "",
    }


def auth_args(token: str) -> list[str]:
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    return ["-c", f"http.extraHeader=Authorization: Basic {basic}"]


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def fmt(values: list[float]) -> str:
    med = statistics.median(values)
    return f"median {med:.3f} s (min {min(values):.3f}, max {max(values):.3f}, n={len(values)})"


def timed(argv: list[str], **kw: Any) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)
    return time.perf_counter() - start


def tip_file_count(bare: Path) -> int:
    out = subprocess.run(
        ["git", "ls-tree", "-r", "--name-only", "main"],
        cwd=bare,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return len(out.split())


async def tool(client: Client, name: str, args: dict[str, Any]) -> tuple[float, dict]:
    start = time.perf_counter()
    result = await client.call_tool(name, args, raise_on_error=False)
    elapsed = time.perf_counter() - start
    data = result.structured_content or {}
    if result.is_error:
        raise SystemExit(f"{name} failed: {data or result.content}")
    return elapsed, data


class Bench:
    def __init__(self, args: argparse.Namespace, work: Path, forge: Forge, token: str):
        self.args, self.work, self.forge, self.token = args, work, forge, token
        self.url = f"{forge.base_url}/{REPO}.git"
        self.stack = contextlib.AsyncExitStack()

    async def session(self, name: str) -> Client:
        """A fresh runtime (empty caches, its own workspace root) and MCP client."""
        base = self.work / name
        rt = Runtime.create(
            Settings(
                github_api_url=self.forge.base_url,
                github_token=self.token,
                workspace_dir=base / "ws",
                audit_log=base / "audit.jsonl",
                # The runs use this interpreter's pytest, which the bubblewrap sandbox (the
                # default) does not show: these figures are for the unsandboxed mode.
                workspace_sandbox="none",
            )
        )
        self.stack.push_async_callback(rt.aclose)
        return await self.stack.enter_async_context(Client(build_mcp(rt)))

    async def clones(self) -> tuple[Client, Path]:
        args = {"full_name": REPO, "ref": BRANCH}
        ours: list[float] = []
        raw: list[float] = []
        full: list[float] = []
        sizes: dict[str, float] = {}
        client, clone = None, None
        env = git_env(self.work)
        for i in range(self.args.clones):
            client = await self.session(f"rt{i}")
            elapsed, info = await tool(client, "ensure_workspace_clone", args)
            assert info["created"], info
            ours.append(elapsed)
            clone = Path(info["path"])
            for name, extra, times in (
                ("raw", ["--filter=blob:none", "--single-branch", "--branch", BRANCH], raw),
                ("full", [], full),
            ):
                dest = self.work / f"{name}{i}"
                argv = ["git", *auth_args(self.token), "clone", "-q", *extra, self.url, str(dest)]
                times.append(timed(argv, env=env))
                sizes[name] = du_mb(dest / ".git")
                shutil.rmtree(dest)
        assert client is not None and clone is not None
        sizes["ours"] = du_mb(clone / ".git")
        med = statistics.median
        print(
            f"first ensure_workspace_clone (blobless, HTTP): {fmt(ours)}; "
            f".git {sizes['ours']:.1f} MB"
        )
        print(f"  raw `git clone --filter=blob:none`: {fmt(raw)}; .git {sizes['raw']:.1f} MB")
        print(f"  full `git clone`: {fmt(full)}; .git {sizes['full']:.1f} MB")
        print(
            f"  ensure_workspace_clone - raw blobless clone = {med(ours) - med(raw):+.3f} s; "
            f"blobless/full time = {med(ours) / med(full):.2f}, "
            f"size = {sizes['ours'] / sizes['full']:.2f}"
        )
        return client, clone

    async def warm(self, client: Client, clone: Path) -> float:
        runs = self.args.runs
        args = {"full_name": REPO, "ref": BRANCH}
        times = [(await tool(client, "ensure_workspace_clone", args))[0] for _ in range(runs)]
        print(f"warm ensure_workspace_clone (fetch + state): {fmt(times)}")

        env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
        py = sys.executable
        pytest_cmd = f"{py} -m pytest -q -p no:cacheprovider tests_bench"
        cases = [
            ("unittest, summary lines", f"{py} -m unittest -q tests_bench.test_fast", False),
            ("pytest, JUnit report", pytest_cmd, False),
            ("pytest, JUnit report, .venv-mcp on PATH", pytest_cmd, True),
        ]
        worst = 0.0
        for label, command, venv in cases:
            call = {**args, "test_command": command, "use_venv": venv}
            await tool(client, "run_tests", call)  # the first call; creates the venv
            self.forge.clear_requests()
            service, direct = [], []
            for _ in range(runs):
                elapsed, result = await tool(client, "run_tests", call)
                service.append(elapsed)
                direct.append(timed(["bash", "-c", command], cwd=clone, env=env))
            forge_calls = len(self.forge.requests())
            overhead = statistics.median(service) - statistics.median(direct)
            worst = max(worst, overhead)
            print(
                f"run_tests on the warm clone, calls 2..{runs + 1} [{label}]: "
                f"passed={result['passed']} failed={result['failed']}; "
                f"forge requests {forge_calls / runs:.1f} per call"
            )
            print(f"    run_tests      {fmt(service)}")
            print(f"    command alone  {fmt(direct)}")
            print(f"    overhead {overhead:+.3f} s = {overhead / TARGET_OVERHEAD_S:.2f} x target")
        return worst


async def bench(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    forge = Forge(data_dir=work / "forge")
    try:
        t0 = time.perf_counter()
        local = build_local(
            work / "local.git", args.files, args.rewrites, args.rewrite_files, args.size
        )
        built = time.perf_counter() - t0
        forge.start()
        forge.seed_repo(REPO)  # empty: the push brings everything
        token = forge.create_token("bench-org", repos=[REPO], access="write")
        forge_url = f"{forge.base_url}/{REPO}.git"
        t0 = time.perf_counter()
        push = ["git", f"--git-dir={local}", *auth_args(token), "push", "-q", forge_url]
        push += ["main:refs/heads/main", f"main:refs/heads/{BRANCH}"]
        subprocess.run(push, check=True, env=git_env(work))  # noqa: ASYNC221
        pushed = time.perf_counter() - t0
        hosted = du_mb(forge.data_dir / "repos" / f"{REPO}.git")
        tip = tip_file_count(local)
        print(
            f"forge repository: {tip} files at the tip, {args.rewrites + 1} commits, "
            f"{hosted:.1f} MB on the forge (local build {built:.1f} s, "
            f"git push over smart HTTP {pushed:.1f} s)"
        )
        if tip < 5000 or hosted < 50:
            print("note: smaller than the benchmark's brief (>= 5 000 files, >= 50 MB)")
        runner = Bench(args, work, forge, token)
        async with runner.stack:
            client, clone = await runner.clones()
            worst = await runner.warm(client, clone)
        verdict = "OK" if worst <= TARGET_OVERHEAD_S else "OVER TARGET"
        print(
            f"worst run_tests overhead {worst:.3f} s = {worst / TARGET_OVERHEAD_S:.2f} x the "
            f"{TARGET_OVERHEAD_S:.1f} s target: {verdict}"
        )
    finally:
        forge.stop()
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--rewrites", type=int, default=6, help="commits of new random blobs")
    parser.add_argument("--rewrite-files", type=int, default=200)
    parser.add_argument("--size", type=int, default=50_000, help="bytes per random blob")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--clones", type=int, default=3)
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
