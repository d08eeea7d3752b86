"""Time from clone to the first answer: `git clone` of a commit, then the way a newcomer
starts it, until the first `tools/list` answer arrives over stdio (a fresh cache
directory, so no fast-start listing exists yet).

Ways measured (the dependencies are already installed in this interpreter's environment
and shared by `.pth`, so no download is timed; that part is the same for every way):
- `checkout`: `python main.py serve` in the clone (the only way before the package worked);
- `module`: `python -m github_mcp serve` in the clone (what `make run` uses now);
- `installed`: `pip install --no-deps` of the clone into a fresh venv, then its
  `github-mcp-controller serve` (what `pipx install .` amounts to).

    python bench/clone_to_first_answer.py [--commit REV] [--ways checkout,module,installed]
                                          [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-06-18", "capabilities": {},
               "clientInfo": {"name": "bench", "version": "1"}},
}  # fmt: skip


def first_tools_list(argv: list[str], cwd: Path, env: dict[str, str]) -> None:
    proc = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    assert proc.stdin and proc.stdout
    for message in (INIT, {"jsonrpc": "2.0", "method": "notifications/initialized"},
                    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}):  # fmt: skip
        proc.stdin.write(json.dumps(message).encode() + b"\n")
    proc.stdin.flush()
    for line in proc.stdout:
        if b'"id":2' in line.replace(b" ", b"") and b"tools" in line:
            break
    else:
        raise RuntimeError(f"no tools/list answer from {argv}")
    proc.kill()
    proc.wait()


def one_run(way: str, commit: str) -> float:
    with tempfile.TemporaryDirectory(prefix="clone-bench-") as tmp:
        base = Path(tmp)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
        env |= {"HOME": tmp, "XDG_CACHE_HOME": f"{tmp}/cache", "GITHUB_MCP_FAST_START": "1"}
        started = time.perf_counter()
        clone = base / "clone"
        subprocess.run(["git", "clone", "-q", "--no-checkout", str(ROOT), str(clone)], check=True)
        subprocess.run(["git", "-C", str(clone), "checkout", "-q", commit], check=True)
        if way == "checkout":
            argv = [sys.executable, "main.py", "serve"]
        elif way == "module":
            argv = [sys.executable, "-m", "github_mcp", "serve"]
        else:
            argv = [install(clone, base / "venv"), "serve"]
        first_tools_list(argv, clone, env)
        return time.perf_counter() - started


def install(clone: Path, venv: Path) -> str:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = venv / "lib" / version / "site-packages"
    (site / "deps.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(venv / "bin" / "python"), "install",
         "-q", "--no-deps", "--no-build-isolation", "--no-index", str(clone)],
        check=True, stdout=subprocess.DEVNULL,
    )  # fmt: skip
    return str(venv / "bin" / "github-mcp-controller")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--commit", default="HEAD")
    parser.add_argument("--ways", default="checkout,module,installed")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    for way in args.ways.split(","):
        times = [one_run(way, args.commit) for _ in range(args.runs)]
        print(
            f"{args.commit[:10]:10} {way:9} clone -> first tools/list: median "
            f"{statistics.median(times):.2f} s (min {min(times):.2f}, max {max(times):.2f}, "
            f"{args.runs} runs)",
            flush=True,
        )


if __name__ == "__main__":
    main()
