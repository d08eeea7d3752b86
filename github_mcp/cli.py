"""Command line: serve | sandbox | check | tools | docs | call."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Iterator
from typing import Any

from .config import Settings
from .observability import configure_logging, log_event


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="github-mcp", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--stateless", action="store_true", help="stateless streamable HTTP")
    serve.add_argument(
        "--sandbox-forge",
        choices=["never", "auto", "always"],
        default="never",
        help="auto: use the embedded sandbox forge when no GitHub credentials are set",
    )
    sandbox = sub.add_parser("sandbox", help="run the sandbox forge (a local GitHub stand-in)")
    sandbox.add_argument("args", nargs=argparse.REMAINDER)
    sub.add_parser("check", help="validate the configuration and exit")
    tools = sub.add_parser("tools", help="list the registered tools")
    tools.add_argument("--json", action="store_true")
    sub.add_parser("docs", help="regenerate docs/TOOLS.md and docs/CONFIG.md")
    call = sub.add_parser("call", help="run one tool and print its result")
    call.add_argument("tool")
    call.add_argument("--args", default="{}", help="arguments as a JSON object")
    call.add_argument("--arg", action="append", default=[], help="key=value (JSON value or text)")
    return parser


def cli(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args.command == "sandbox":
        from .sandbox.cli import main as sandbox_main

        return sandbox_main(args.args)
    settings = Settings()
    configure_logging(settings.log_level)
    if args.command == "serve":
        return _serve(args, settings)
    if args.command == "check":
        return _check(settings)
    if args.command == "tools":
        return _tools(settings, as_json=args.json)
    if args.command == "docs":
        from .docs_gen import write_docs

        for path in write_docs():
            print(f"wrote {path}")
        return 0
    if args.command == "call":
        return _call(settings, args)
    return 2


@contextlib.contextmanager
def embedded_forge(settings: Settings, mode: str) -> Iterator[Settings]:
    """Start the sandbox forge when asked (or when no credentials are set)."""
    if mode == "never" or (mode == "auto" and settings.has_github_credentials):
        yield settings
        return
    from .sandbox import Forge
    from .sandbox.seed import seed_demo

    forge = Forge()
    base_url = forge.start()
    try:
        seed_demo(forge)
        token = forge.create_token(login="octocat")
        log_event("sandbox_forge_started", url=base_url)
        yield Settings(github_api_url=base_url, github_token=token)
    finally:
        forge.stop()


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from .runtime import Runtime

    with embedded_forge(settings, args.sandbox_forge) as effective:
        rt = Runtime.create(effective)
        if args.transport == "stdio":
            from .server import build_mcp

            mcp = build_mcp(rt)
            asyncio.run(mcp.run_async(transport="stdio", show_banner=False))
            return 0
        import uvicorn

        from .server import build_http_app

        app = build_http_app(rt, host=args.host, port=args.port, stateless=args.stateless)
        if effective is not settings or os.environ.get("GITHUB_MCP_PRINT_CONFIG"):
            _print_client_config(args.host, args.port, effective)
        uvicorn.run(
            app, host=args.host, port=args.port, log_level="warning", timeout_graceful_shutdown=5
        )
    return 0


def _print_client_config(host: str, port: int, settings: Settings) -> None:
    url = f"http://{host}:{port}/mcp"
    remote = {"mcpServers": {"github": {"command": "npx", "args": ["mcp-remote", url]}}}
    lines = [
        "",
        f"GitHub MCP Controller is serving at {url}",
        f"  GitHub API: {settings.github_api_url}",
        f"  Health:     http://{host}:{port}/healthz   Status: http://{host}:{port}/status",
        f"Claude Code:    claude mcp add --transport http github {url}",
        "Claude Desktop (claude_desktop_config.json):",
        "  " + json.dumps(remote),
        f"ChatGPT connector URL: {url}  (use bearer auth when exposed beyond loopback)",
        "Press Ctrl-C to stop.",
        "",
    ]
    print("\n".join(lines), file=sys.stderr, flush=True)


def _check(settings: Settings) -> int:
    from .registry import selected_specs
    from .runtime import Runtime

    rt = Runtime.create(settings)
    specs = selected_specs(rt)
    print(
        json.dumps(
            {
                "ok": True,
                "tools": len(specs),
                "write_tools": sum(s.write for s in specs),
                "credential_kind": rt.token_kind,
                "github_api_url": settings.github_api_url,
            }
        )
    )
    return 0


def _tools(settings: Settings, *, as_json: bool) -> int:
    from .registry import selected_specs
    from .runtime import Runtime

    specs = selected_specs(Runtime.create(settings))
    if as_json:
        print(
            json.dumps(
                [{"name": s.name, "toolset": s.toolset, "write": s.write} for s in specs], indent=1
            )
        )
    else:
        for spec in specs:
            print(f"{spec.name:34} {spec.toolset:14} {'write' if spec.write else 'read'}")
    return 0


def _call(settings: Settings, args: argparse.Namespace) -> int:
    from .runtime import Runtime

    try:
        arguments = json.loads(args.args)
        if not isinstance(arguments, dict):
            raise ValueError
    except ValueError:
        print(
            json.dumps(
                {"error": {"code": "invalid_input", "message": "--args must be a JSON object"}}
            )
        )
        return 2
    for pair in args.arg:
        key, sep, value = pair.partition("=")
        if not sep:
            print(
                json.dumps(
                    {
                        "error": {
                            "code": "invalid_input",
                            "message": f"--arg {key!r} needs key=value",
                        }
                    }
                )
            )
            return 2
        try:
            arguments[key] = json.loads(value)
        except ValueError:
            arguments[key] = value

    async def run() -> tuple[bool, Any]:
        from fastmcp import Client

        from .server import build_mcp

        rt = Runtime.create(settings)
        try:
            async with Client(build_mcp(rt)) as client:
                result = await client.call_tool(args.tool, arguments, raise_on_error=False)
        finally:
            await rt.aclose()
        payload = result.structured_content
        if payload is None:
            payload = {"text": "".join(getattr(c, "text", "") for c in result.content)}
        return result.is_error, payload

    is_error, payload = asyncio.run(run())
    print(json.dumps(payload, indent=2, ensure_ascii=False))
    return 1 if is_error else 0
