"""Command line: serve | sandbox | check | tools | call | tasks-worker (and, in a source
checkout, docs)."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import secrets
import sys
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

from pydantic import SecretStr, ValidationError

from github_mcp.cli.checkout import NO_DOCS_HERE, SANDBOX_NOTE, source_checkout, version
from github_mcp.config import Settings
from github_mcp.monitoring import tracing
from github_mcp.monitoring.observability import configure_logging, log_event
from github_mcp.serving.secrets_handoff import take_secrets
from github_mcp.serving.starting_app import StartingApp

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime


class _VersionAction(argparse.Action):
    def __call__(self, parser: argparse.ArgumentParser, *_: object, **__: object) -> None:
        print(f"{parser.prog} {version()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="github-mcp-controller", description="The GitHub MCP Controller."
    )
    # entry.main answers --version before this parser is built; here it shows in --help.
    # Looked up only when asked: a lookup that misses scans every installed package.
    parser.add_argument(
        "-V", "--version", action=_VersionAction, nargs=0, help="show the version and exit"
    )
    sub = parser.add_subparsers(dest="command", required=True)
    _add_serve(sub)
    sandbox = sub.add_parser("sandbox", help="run the sandbox forge (a local GitHub stand-in)")
    sandbox.add_argument("args", nargs=argparse.REMAINDER)
    _add_plain_commands(sub)
    tools = sub.add_parser("tools", help="list the registered tools")
    tools.add_argument("--json", action="store_true")
    if source_checkout() is not None:  # a developer command: it rewrites the checkout's files
        sub.add_parser(
            "docs",
            help="regenerate docs/TOOLS.md, CONFIG.md, PARITY.md and the tool index "
            "(source checkout only)",
        )
    _add_call(sub)
    return parser


def _add_serve(sub: Any) -> None:
    serve = sub.add_parser("serve", help="run the MCP server (stdio by default)")
    serve.add_argument("--transport", choices=["stdio", "http"], default="stdio")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=int, default=int(os.environ.get("PORT", "8000")))
    serve.add_argument("--stateless", action="store_true", help="stateless streamable HTTP")
    serve.add_argument(
        "--generate-token",
        action="store_true",
        help="HTTP: make a bearer token for this run when none is configured, and print it",
    )
    serve.add_argument(
        "--sandbox-forge",
        choices=["never", "auto", "always"],
        default="never",
        help="auto: use the embedded sandbox forge when no GitHub credentials are set",
    )


def _add_call(sub: Any) -> None:
    call = sub.add_parser(
        "call",
        help="run one tool and print its result",
        description="Run one tool through an in-process MCP client and print its structured "
        "result as JSON (a readable summary with --pretty). Exit codes: 0 ok, 1 the tool "
        "failed, 2 bad arguments to this command, 3 refused by policy, 4 approval needed. "
        "On a terminal, long calls show a progress bar on stderr.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    call.add_argument("tool")
    call.add_argument(
        "--args", default="{}", help="arguments as a JSON object; @FILE reads a file, - stdin"
    )
    call.add_argument(
        "--arg",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="one argument; VALUE is parsed as JSON when it can be, else taken as text",
    )
    call.add_argument(
        "--sandbox-forge",
        choices=["never", "auto", "always"],
        default="auto",
        help="run against a fresh embedded sandbox forge seeded with the demo repository "
        "(auto, the default: when no GitHub credentials are set, and said so on stderr)",
    )
    call.add_argument("--compact", action="store_true", help="print JSON on one line")
    call.add_argument("--pretty", action="store_true", help="print a readable summary")


def cli(argv: list[str] | None = None) -> int:
    process_entry = argv is None  # only the process's own command line may re-execute it
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["sandbox"]:
        # the forge has its own options; hand them over untouched
        from sandbox_forge.cli import main as sandbox_main

        return sandbox_main(argv[1:])
    if argv[:1] == ["docs"] and source_checkout() is None:
        print(NO_DOCS_HERE, file=sys.stderr)
        return 2
    args = _parser().parse_args(argv)
    # serve: secrets leave the process environment first (re-exec; see secrets_handoff)
    # Any: Settings' signature mixes these field overrides with pydantic-settings' own options
    serving = args.command in ("serve", "tasks-worker")
    handed: dict[str, Any] = take_secrets(reexec=process_entry) if serving else {}
    try:
        settings = Settings(**handed)
    except ValidationError as exc:  # e.g. an unknown toolset: refuse to start, say why
        print(f"github-mcp: configuration error: {exc}", file=sys.stderr)
        return 2
    configure_logging(settings.log_level)
    if args.command == "serve":
        from github_mcp.serving.sigterm import sigterm_exits

        tracing.configure_from_env()
        try:
            # SIGTERM is a normal exit, so the embedded forge's temporary directory goes
            # too (over HTTP the server's own handler takes over once it serves).
            with sigterm_exits():
                return _serve(args, settings)
        finally:
            tracing.shutdown()
    return _run_command(args, settings)


def _run_command(args: argparse.Namespace, settings: Settings) -> int:
    """The commands other than serve, once the settings are read."""
    if args.command in ("check", "tools"):
        import github_mcp.tools  # noqa: F401 - registers the built-in tools
        from github_mcp.cli.listing import check, list_tools
        from github_mcp.pipeline.extension_tools import import_extension_tools

        import_extension_tools()  # the operator's extra_tools.py, when it is importable
        return check(settings) if args.command == "check" else list_tools(settings, args.json)
    if args.command == "docs":
        from github_mcp.cli.docs_gen import write_docs

        for path in write_docs():
            print(f"wrote {path}")
        return 0
    return _call(settings, args) if args.command == "call" else _tasks_worker(settings)


def _add_plain_commands(sub: Any) -> None:
    """The commands without options of their own."""
    sub.add_parser("check", help="validate the configuration and exit")
    sub.add_parser(
        "tasks-worker",
        help="run MCP tasks from the shared queue (GITHUB_MCP_TASKS_URL or STATE_URL: Redis)",
    )


def _tasks_worker(settings: Settings) -> int:
    from github_mcp.cli.tasks_worker import run_worker

    return run_worker(settings)


@contextlib.contextmanager
def embedded_forge(
    settings: Settings,
    mode: str,
    *,
    oauth_callback: str | None = None,
    notes: list[str] | None = None,
) -> Iterator[Settings]:
    """Start the sandbox forge when asked (or when no credentials are set). Under
    GITHUB_MCP_AUTH=oauth with no app configured, the server registers its own OAuth app
    on the forge (callback `oauth_callback`); `notes` gets the forge users to sign in as."""
    signing_in = settings.auth_mode == "oauth"
    has_app = bool(settings.oauth_client_id)
    if mode == "never" or (
        mode == "auto" and (has_app if signing_in else settings.has_github_credentials)
    ):
        yield settings
        return
    from sandbox_forge import Forge
    from sandbox_forge.admin.seed import seed_demo

    forge = Forge()
    try:  # from here on the forge's temporary directory is removed however we leave
        base_url = forge.start()
        seeded = seed_demo(forge)
        token = forge.create_token(login="octocat")
        log_event("sandbox_forge_started", url=base_url)
        overrides: dict[str, Any] = {"github_api_url": base_url}
        if signing_in:
            # users act as themselves: no server token, so nothing runs as octocat
            overrides["github_token"] = None
            if not has_app and oauth_callback:
                app = forge.register_oauth_app(
                    name="GitHub MCP Controller (embedded forge)",
                    callback_urls=[oauth_callback],
                    expiring=True,
                )
                overrides["oauth_client_id"] = app["client_id"]
                overrides["oauth_client_secret"] = SecretStr(app["client_secret"])
            if notes is not None:
                notes.extend(_forge_sign_in_notes(seeded.get("users") or {}, base_url))
        else:
            overrides["github_token"] = SecretStr(token)
        yield settings.with_overrides(**overrides)
    finally:
        forge.stop()


def _forge_sign_in_notes(passwords: dict[str, str], base_url: str) -> list[str]:
    lines = [f"  Sign in on the sandbox forge ({base_url}) as:"]
    for login, password in sorted(passwords.items()):
        lines.append(f"    {login:8} password {password}")
    return lines


def _oauth_callback(args: argparse.Namespace, settings: Settings) -> str | None:
    if settings.auth_mode != "oauth" or args.transport != "http":
        return None
    from github_mcp.hosted import CALLBACK_PATH, PublicURLError, public_base_url
    from github_mcp.serving.exposure import is_loopback

    try:
        base = public_base_url(settings, args.host, args.port, loopback=is_loopback(args.host))
    except PublicURLError as exc:
        raise SystemExit(str(exc)) from None
    return base + CALLBACK_PATH


def _serve(args: argparse.Namespace, settings: Settings) -> int:
    from github_mcp.monitoring.gc_tuning import tune_for_serving
    from github_mcp.pipeline.runtime import Runtime

    if args.transport == "http":
        from github_mcp.cli.banner import port_problem

        # before the forge starts and before a token or the banner is printed
        problem = port_problem(args.host, args.port)
        if problem:
            print(f"github-mcp-controller: {problem}", file=sys.stderr)
            return 2
    notes: list[str] = []
    callback = _oauth_callback(args, settings)
    with embedded_forge(
        settings, args.sandbox_forge, oauth_callback=callback, notes=notes
    ) as effective:
        if args.transport == "stdio":
            from github_mcp.serving.stdio_serving import serve_stdio

            return serve_stdio(Runtime.create(effective))
        from github_mcp.serving.exposure import check_http_exposure
        from github_mcp.serving.shutdown import serve_http

        token = None
        if args.generate_token and not effective.bearer_tokens:
            # under oauth this token only opens the operator pages (/status, /metrics)
            # A per-run bearer token gives each client a principal, so approvals stay
            # scoped to it even on session-less (2026-07-28) connections.
            token = secrets.token_urlsafe(24)
            effective = effective.with_overrides(auth_tokens=SecretStr(token))
        rt = Runtime.create(effective)  # once: its start-up events are logged once
        check_http_exposure(effective, args.host)  # before the port opens
        app = _http_app(rt, args)
        if args.generate_token or os.environ.get("GITHUB_MCP_PRINT_CONFIG"):
            from github_mcp.cli.banner import print_client_config

            print_client_config(args.host, args.port, effective, token, notes)
        if isinstance(app, StartingApp):
            app.on_built = tune_for_serving  # once what it builds exists, to freeze it too
        else:
            tune_for_serving()
        return serve_http(app, rt, host=args.host, port=args.port)


def _http_app(rt: Runtime, args: argparse.Namespace) -> Any:
    """The app to serve: built while the port already answers probes (starting_app), or
    under OAuth before the port opens, since its sign-in set-up checks the configuration."""

    def build() -> Any:
        from github_mcp.serving.server import build_http_app

        return build_http_app(rt, host=args.host, port=args.port, stateless=args.stateless)

    if rt.settings.auth_mode == "oauth":
        return build()
    return StartingApp(build)


def _call(settings: Settings, args: argparse.Namespace) -> int:
    from github_mcp.cli.call import EXIT_USAGE, ProgressBar, exit_code, outcome, pretty

    try:
        arguments = call_arguments(args.args, args.arg)
    except ValueError as exc:
        envelope = {"error": {"code": "invalid_input", "message": str(exc), "retryable": False}}
        print(json.dumps(envelope))
        return EXIT_USAGE
    bar = ProgressBar()
    try:
        with embedded_forge(settings, args.sandbox_forge) as effective:
            if effective is not settings:  # the forge runs: say so, the output is its data
                print(SANDBOX_NOTE, file=sys.stderr)
            is_error, payload = asyncio.run(_call_once(effective, args.tool, arguments, bar))
    finally:
        bar.clear()
    if args.pretty:
        print(pretty(args.tool, is_error, payload))
    else:
        print(json.dumps(payload, indent=None if args.compact else 2, ensure_ascii=False))
    return exit_code(outcome(is_error, payload))


def call_arguments(raw: str, pairs: list[str]) -> dict[str, Any]:
    """--args (JSON, @file or - for stdin) merged with --arg key=value pairs."""
    if raw == "-":
        raw = sys.stdin.read()
    elif raw.startswith("@"):
        try:
            with open(raw[1:], encoding="utf-8") as handle:
                raw = handle.read()
        except OSError as exc:
            raise ValueError(f"cannot read {raw[1:]}: {exc.strerror}") from None
    try:
        arguments = json.loads(raw)
    except ValueError:
        raise ValueError("--args must be a JSON object") from None
    if not isinstance(arguments, dict):
        raise ValueError("--args must be a JSON object")
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.isidentifier():
            raise ValueError(f"--arg {pair!r} must look like key=value")
        try:
            arguments[key] = json.loads(value)
        except ValueError:
            arguments[key] = value
    return arguments


async def _call_once(
    settings: Settings, tool: str, arguments: dict[str, Any], progress: Any = None
) -> tuple[bool, Any]:
    from github_mcp.cli.call import call_through_seam
    from github_mcp.pipeline.runtime import Runtime

    rt = Runtime.create(settings)
    try:
        return await call_through_seam(rt, tool, arguments, progress)
    finally:
        await rt.aclose()
