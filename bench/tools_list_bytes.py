"""tools/list on the wire: bytes of the full list, of the core list (GITHUB_MCP_TOOLS=core,
for a client that follows list changes) and of their model-facing part (name, description,
input schema), with the share of each field. Targets: full <= 60 KB, core model-facing
<= 12 KB. `--before DIR` measures an older tree the same way.

    python bench/tools_list_bytes.py [--before /work/baseline]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
FOLLOWS = {"experimental": {"tools": {"listChanged": True}}}


def listing(root: Path, capabilities: dict[str, Any], **env: str) -> dict[str, Any]:
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": {"name": "bench", "version": "1"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.Popen(
            [sys.executable, "main.py", "serve"],
            cwd=root,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env={
                "PATH": os.environ["PATH"],
                "HOME": tmp,
                "GITHUB_API_URL": "http://127.0.0.1:9",
                "GITHUB_MCP_AUDIT_LOG": f"{tmp}/a.jsonl",
                **env,
            },
        )
        assert proc.stdin and proc.stdout
        proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in messages))
        proc.stdin.flush()
        found = None
        for line in proc.stdout:  # stdin stays open until the answer is in
            frame = json.loads(line)
            if frame.get("id") == 2:
                found = frame["result"]
                break
        proc.stdin.close()
        proc.stdout.read()
        proc.wait(timeout=30)
    if found is not None:
        return found
    raise RuntimeError("no tools/list answer")


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def report(label: str, result: dict[str, Any]) -> None:
    tools = result["tools"]
    facing = sum(size({k: t[k] for k in ("name", "description", "inputSchema")}) for t in tools)
    fields: dict[str, int] = {}
    for t in tools:
        for key, value in t.items():
            fields[key] = fields.get(key, 0) + size(value)
    shares = ", ".join(
        f"{k} {v / 1024:.1f}" for k, v in sorted(fields.items(), key=lambda i: -i[1])
    )
    print(
        f"{label:<28} {len(tools):>3} tools  wire {size(result) / 1024:6.1f} KB  "
        f"model-facing {facing / 1024:6.1f} KB  ({shares})"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="an older tree to measure the same way")
    args = parser.parse_args()
    report("full list", listing(ROOT, {}))
    report("core list (follows changes)", listing(ROOT, FOLLOWS, GITHUB_MCP_TOOLS="core"))
    if args.before:
        report(f"before: full ({args.before})", listing(Path(args.before), {}))
    print("targets: full <= 60 KB on the wire; core model-facing <= 12 KB")


if __name__ == "__main__":
    main()
