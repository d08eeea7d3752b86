"""tools/list on the wire, as a stdio client receives it: bytes of every list a client can
get (all toolsets, the default toolsets, the core list, output schemas on) and of their
model-facing part (name, description, input schema), per tool and in all, with the share
of each field. Targets: per tool <= 700 B on the wire and <= 400 B model-facing on
average; the default list <= 30 KB model-facing. `--before DIR` measures an older tree
the same way (its own defaults), and `--reference` the reference Node server
(@modelcontextprotocol/server-github, fetched by bench/workflows.py's helper).

    python bench/tools_list_bytes.py [--before DIR] [--reference]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from tests.stdio_session import opening, run  # noqa: E402


def listing(root: Path, capabilities: dict[str, Any] | None = None, **env: str) -> dict[str, Any]:
    """The tools/list answer of our server in `root` (capabilities: kept for old callers)."""
    with tempfile.TemporaryDirectory() as tmp:
        command = [sys.executable, "main.py", "serve"]
        return _ask(command, root, {
            "PATH": os.environ["PATH"],
            "HOME": tmp,
            "GITHUB_API_URL": "http://127.0.0.1:9",
            "GITHUB_MCP_AUDIT_LOG": f"{tmp}/a.jsonl",
            "GITHUB_MCP_FAST_START": "0",
            **env,
        })  # fmt: skip


def _ask(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    return run(command, opening(), cwd=cwd, env=env).result(2)


def size(value: Any) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def facing(tools: list[dict[str, Any]]) -> int:
    return sum(size({k: t[k] for k in ("name", "description", "inputSchema")}) for t in tools)


def report(label: str, result: dict[str, Any]) -> None:
    tools = result["tools"]
    count = max(1, len(tools))
    fields: dict[str, int] = {}
    for t in tools:
        for key, value in t.items():
            fields[key] = fields.get(key, 0) + size(value)
    shares = ", ".join(
        f"{k} {v / 1024:.1f}" for k, v in sorted(fields.items(), key=lambda i: -i[1])
    )
    print(
        f"{label:<30} {len(tools):>3} tools  wire {size(result) / 1024:5.1f} KB "
        f"({size(result) / count:4.0f} B/tool)  model-facing {facing(tools) / 1024:5.1f} KB "
        f"({facing(tools) / count:4.0f} B/tool)  [{shares}]"
    )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", help="an older tree to measure the same way")
    parser.add_argument("--reference", action="store_true", help="the reference Node server")
    args = parser.parse_args()
    report("all toolsets", listing(ROOT, GITHUB_MCP_TOOLSETS="all"))
    report("default (no settings)", listing(ROOT))
    report("core (GITHUB_MCP_TOOLS=core)", listing(ROOT, GITHUB_MCP_TOOLS="core"))
    report(
        "all, with output schemas",
        listing(ROOT, GITHUB_MCP_TOOLSETS="all", GITHUB_MCP_OUTPUT_SCHEMAS="true"),
    )
    if args.before:
        report(f"before: {args.before}", listing(Path(args.before)))
    if args.reference:
        from _reference_server import node_command  # bench/_reference_server.py

        command, env = node_command("http://127.0.0.1:9")
        report("reference server", _ask(command, ROOT, env))
    print("targets: <= 700 B/tool on the wire, <= 400 B/tool model-facing (all toolsets); "
          "default list <= 30 KB model-facing")  # fmt: skip


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    main()
