"""The one entry point: the `github-mcp-controller` console script, `python -m github_mcp`
and the checkout's `main.py` all run `main()`.

Before anything heavy is imported, `serve` moves the secrets out of its environment (a
re-exec: see secrets_handoff), so only the new image pays for the imports; over stdio, the
built-in tools are then left to the tool index until a call or the warm-up imports them
(serving/stdio_serving.py).
"""

from __future__ import annotations

import gc
import os
import sys


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] in (["--version"], ["-V"]):
        print(f"github-mcp-controller {version()}")
        return 0
    if argv is None and args[:1] == ["serve"]:  # only the process's own command line
        from github_mcp.serving.secrets_handoff import hand_off

        hand_off()  # with a secret set, re-executes this process without it
        # pydantic looks for plugins in every installed package's entry points at its
        # first model (~10-20 ms of a start); the server uses none. Set the variable
        # (empty: load them all, or a list of names to leave out) to choose otherwise.
        # Workspace commands do not inherit it (their environment is an allow-list).
        os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")
        if serves_stdio(args):
            from github_mcp.pipeline.tool_spec import defer_tool_imports

            defer_tool_imports()
            # No collections while it starts: 6-7 ran before the first answer (20-50 ms
            # of CPU) and found almost no garbage. The warm-up collects once, while the
            # client is quiet, and turns the collector back on; a timer does so anyway
            # if the client never pauses (serving/stdio_serving.py).
            gc.disable()
        from github_mcp.monitoring.gc_tuning import OLDER_THRESHOLDS, YOUNG_THRESHOLD

        # The serving thresholds (gc_tuning) from the start: imports and tool schemas make
        # ~150 000 long-lived objects, and the default young generation (700) would walk
        # them in repeated collections while they are made.
        gc.set_threshold(YOUNG_THRESHOLD, *OLDER_THRESHOLDS)
    from github_mcp.cli.main import cli

    try:
        return cli(argv)
    except SystemExit as stop:
        if argv is None and serves_stdio(args):
            _leave(stop.code)
        raise


def serves_stdio(args: list[str]) -> bool:
    """`serve` over stdio (its default transport), not asking for help."""
    if args[:1] != ["serve"] or "-h" in args or "--help" in args:
        return False
    for i, arg in enumerate(args):
        if arg == "--transport" and args[i + 1 : i + 2] != ["stdio"]:
            return False
        if arg.startswith("--transport=") and arg != "--transport=stdio":
            return False
    return True


def _leave(code: object) -> None:
    """SIGTERM over stdio (serving/sigterm.py) after every cleanup ran: exit without joining
    threads. A thread reading stdin (when it is a regular file) or a workspace command's
    stays blocked, and interpreter shutdown would wait for it."""
    import contextlib  # here: the process that re-executes does not need it
    import logging
    import os

    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    logging.shutdown()
    os._exit(code if isinstance(code, int) else (0 if code is None else 1))


def version() -> str:
    from github_mcp.cli.checkout import version as installed_version

    return installed_version()
