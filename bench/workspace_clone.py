"""Benchmark workspace clones and warm test runs (DESIGN §6.4).

Builds a bare repository with >= 5 000 files at the tip and >= 50 MB of history (several
commits rewriting files with incompressible content, written through `git fast-import`),
then measures:

- the first `ensure_clone` (blobless) into a fresh workspace root, against a full clone;
- repeated `run_tests` on the warm clone with a trivial test command, against the same
  command run directly, and the overhead of the service beyond the command's own runtime
  (target <= 1 s); for unittest (summary lines) and pytest (JUnit report);
- a warm `ensure_clone` (fetch) and a trivial `run`.

The remote is served over file://; swap `FileCredentials` for the sandbox forge's to
measure over HTTP.

    python bench/workspace_clone.py [--files 5000] [--rewrites 6] [--runs 9] [--clones 3]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from github_mcp.services.workspace import WorkspaceConfig, WorkspaceManager

TARGET_OVERHEAD_S = 1.0
REPO = "bench/big"
TEST_FILE = (
    "import unittest\n\n\nclass Fast(unittest.TestCase):\n"
    "    def test_one(self):\n        self.assertEqual(1 + 1, 2)\n\n"
    "    def test_two(self):\n        self.assertTrue(True)\n\n\n"
    "def test_pytest_style():\n    assert True\n"
)


class FileCredentials:
    def __init__(self, base: Path) -> None:
        self.base = base

    async def auth_header(self) -> str | None:
        return None

    def clone_url(self, full_name: str) -> str:
        return f"file://{self.base}/{full_name}.git"


def build_remote(base: Path, files: int, rewrites: int, rewrite_files: int, size: int) -> Path:
    """fast-import: one commit of `files` small text files, then incompressible rewrites."""
    bare = base / f"{REPO}.git"
    bare.parent.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", "--bare", "-b", "main", str(bare)], check=True)
    subprocess.run(["git", "config", "uploadpack.allowFilter", "true"], cwd=bare, check=True)
    proc = subprocess.Popen(["git", "fast-import", "--quiet"], cwd=bare, stdin=subprocess.PIPE)
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
        for path, data in blobs.items():
            out.write(f"M 100644 inline {path}\ndata {len(data)}\n".encode() + data + b"\n")
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
    subprocess.run(["git", "gc", "-q"], cwd=bare, check=True)
    return bare


def du_mb(path: Path) -> float:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file()) / 1e6


def fmt(values: list[float]) -> str:
    med = statistics.median(values)
    return f"median {med:.3f} s (min {min(values):.3f}, max {max(values):.3f}, n={len(values)})"


def timed(argv: list[str], **kw: object) -> float:
    start = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, **kw)  # type: ignore[call-overload]
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


async def bench_clones(args: argparse.Namespace, work: Path, creds: FileCredentials):
    url = creds.clone_url(REPO)
    ours, raw, full = [], [], []
    sizes = {}
    for i in range(args.clones):
        mgr = WorkspaceManager(WorkspaceConfig(root=work / f"ws{i}"), creds)
        start = time.perf_counter()
        state = await mgr.ensure_clone(REPO, "main")
        ours.append(time.perf_counter() - start)
        for name, extra, times in (
            ("raw", ["--filter=blob:none", "--single-branch", "--branch", "main"], raw),
            ("full", ["--no-local"], full),
        ):
            dest = work / f"{name}{i}"
            times.append(timed(["git", "clone", "-q", *extra, url, str(dest)]))
            sizes[name] = du_mb(dest / ".git")
            shutil.rmtree(dest)
    sizes["ours"] = du_mb(Path(state.path) / ".git")
    print(f"first ensure_clone (blobless): {fmt(ours)}; .git {sizes['ours']:.1f} MB")
    print(f"  raw `git clone --filter=blob:none`: {fmt(raw)}; .git {sizes['raw']:.1f} MB")
    print(f"  full `git clone`: {fmt(full)}; .git {sizes['full']:.1f} MB")
    med = statistics.median
    print(
        f"  ensure_clone - raw blobless clone = {med(ours) - med(raw):+.3f} s; "
        f"blobless/full time = {med(ours) / med(full):.2f}, "
        f"size = {sizes['ours'] / sizes['full']:.2f}"
    )
    return mgr, Path(state.path)


async def bench_runs(args: argparse.Namespace, mgr: WorkspaceManager, clone: Path) -> None:
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        await mgr.ensure_clone(REPO, "main")
        times.append(time.perf_counter() - start)
    print(f"warm ensure_clone (fetch + state): {fmt(times)}")
    times = []
    for _ in range(args.runs):
        start = time.perf_counter()
        res = await mgr.run(REPO, "main", "true")
        times.append(time.perf_counter() - start)
    assert res.exit_code == 0
    print(f"run('true') warm: {fmt(times)}")

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
        await mgr.run_tests(REPO, "main", command, use_venv=venv)  # warm-up, creates the venv
        service, direct = [], []
        for _ in range(args.runs):
            start = time.perf_counter()
            result = await mgr.run_tests(REPO, "main", command, use_venv=venv)
            service.append(time.perf_counter() - start)
            direct.append(timed(["bash", "-c", command], cwd=clone, env=env))
        overhead = statistics.median(service) - statistics.median(direct)
        worst = max(worst, overhead)
        print(f"run_tests warm [{label}]: passed={result.passed} failed={result.failed}")
        print(f"    service        {fmt(service)}")
        print(f"    command alone  {fmt(direct)}")
        print(f"    overhead {overhead:+.3f} s = {overhead / TARGET_OVERHEAD_S:.2f} x target")
    verdict = "OK" if worst <= TARGET_OVERHEAD_S else "OVER TARGET"
    print(
        f"worst run_tests overhead {worst:.3f} s (target <= {TARGET_OVERHEAD_S:.1f} s): {verdict}"
    )


async def bench(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-ws-"))
    try:
        t0 = time.perf_counter()
        remotes = work / "remotes"
        bare = build_remote(remotes, args.files, args.rewrites, args.rewrite_files, args.size)
        print(
            f"remote: {tip_file_count(bare)} files at the tip, {args.rewrites + 1} commits, "
            f"bare repository {du_mb(bare):.1f} MB (built in {time.perf_counter() - t0:.1f} s)"
        )
        creds = FileCredentials(remotes)
        mgr, clone = await bench_clones(args, work, creds)
        print(f"containment: {mgr.describe()}")
        await bench_runs(args, mgr, clone)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--files", type=int, default=5000)
    parser.add_argument("--rewrites", type=int, default=6, help="commits of new random blobs")
    parser.add_argument("--rewrite-files", type=int, default=200)
    parser.add_argument("--size", type=int, default=50_000, help="bytes per random blob")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--clones", type=int, default=3)
    asyncio.run(bench(parser.parse_args()))


if __name__ == "__main__":
    main()
