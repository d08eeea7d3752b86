"""`python -m sandbox_forge`: run the forge until interrupted."""

from __future__ import annotations

import argparse
import signal
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

from sandbox_forge.admin.seed import seed_demo
from sandbox_forge.forge import Forge

SEEDS = {"demo": seed_demo}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m sandbox_forge",
        description="Run the sandbox forge: a local stand-in for GitHub's REST API and git.",
    )
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8765, help="0 picks a free port")
    parser.add_argument("--seed", choices=sorted(SEEDS), help="content to create at start")
    parser.add_argument("--latency-ms", type=int, default=0, help="added to every request")
    parser.add_argument("--data-dir", help="where repositories live (default: a temp dir)")
    parser.add_argument("--rate-limit", type=int, default=5000, help="core requests per hour")
    parser.add_argument("--tree-truncate-limit", type=int, default=100_000)
    parser.add_argument("--record-responses", action="store_true")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    args = build_parser().parse_args(argv)
    out = out or sys.stdout
    forge = Forge(
        data_dir=args.data_dir,
        latency_ms=args.latency_ms,
        tree_truncate_limit=args.tree_truncate_limit,
        rate_limit=args.rate_limit,
        record_responses=args.record_responses,
    )
    try:
        base_url = forge.start(host=args.host, port=args.port)
    except OSError as exc:
        print(f"sandbox forge: cannot listen on {args.host}:{args.port}: {exc}", file=sys.stderr)
        forge.stop()
        return 1
    stop = threading.Event()
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            signal.signal(signum, lambda *_: stop.set())
    try:
        seeded = SEEDS[args.seed](forge) if args.seed else {}
        token = forge.create_token("octocat")
        print(f"sandbox forge listening on {base_url}", file=out)
        print(f"  GITHUB_API_URL={base_url}", file=out)
        print(f"  admin token:  {forge.admin_token}", file=out)
        print(f"  user token:   {token}  (octocat, write access)", file=out)
        if args.seed:
            print(f"  seeded:       {args.seed}", file=out)
        for login, password in (seeded.get("users") or {}).items():
            print(f"  sign in as:   {login} / {password}", file=out)
        out.flush()
        while not stop.wait(0.5):
            pass
    finally:
        forge.stop()
    return 0
