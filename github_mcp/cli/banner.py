"""What `serve --transport http --generate-token` (`make run`) prints before it serves: where
it listens, and one copy-paste block per MCP client. And the check, made before anything
is printed, that the port is free.

Each block starts with a line `── <client>: <where it goes>` and ends at a blank line; its
body is pasted as is (a shell command or a JSON file). tests/test_banner.py parses them.
"""

from __future__ import annotations

import errno
import json
import socket
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from github_mcp.config import Settings

HEADER = "── "
SERVER_NAME = "github"


@dataclass(frozen=True)
class ClientSetup:
    client: str
    where: str
    kind: str  # "shell", "json" or "text"
    body: str

    def lines(self) -> list[str]:
        return [f"{HEADER}{self.client}: {self.where}", *self.body.splitlines(), ""]


def _json(value: object) -> str:
    return json.dumps(value, indent=2)


def client_setups(url: str, token: str | None, *, oauth: bool) -> list[ClientSetup]:
    """Settings for each client to reach `url` (with the bearer `token`, or signing in
    with OAuth). No argument holds a space: Claude Desktop and Cursor on Windows start
    `npx` through a shell that splits them, so the header travels in an env variable."""
    headers = {"Authorization": f"Bearer {token}"} if token and not oauth else {}
    claude_code = f"claude mcp add --transport http {SERVER_NAME} {url}"
    remote_args = ["-y", "mcp-remote", url]
    desktop: dict[str, object] = {"command": "npx", "args": remote_args}
    if headers:
        claude_code += f' --header "Authorization: Bearer {token}"'
        remote_args += ["--header", "Authorization:${AUTH_HEADER}"]
        desktop["env"] = {"AUTH_HEADER": f"Bearer {token}"}
    vscode: dict[str, object] = {"type": "http", "url": url}
    cursor: dict[str, object] = {"url": url}
    if headers:
        vscode["headers"] = cursor["headers"] = headers
    signing_in = " (then /mcp in Claude Code to sign in)" if oauth else ""
    return [
        ClientSetup("Claude Code", f"run in a terminal{signing_in}", "shell", claude_code),
        ClientSetup(
            "Claude Desktop",
            "merge into claude_desktop_config.json (Settings > Developer > Edit Config), "
            "restart Claude Desktop",
            "json",
            _json({"mcpServers": {SERVER_NAME: desktop}}),
        ),
        ClientSetup(
            "VS Code",
            "save as .vscode/mcp.json in your workspace",
            "json",
            _json({"servers": {SERVER_NAME: vscode}}),
        ),
        ClientSetup(
            "Cursor",
            "save as ~/.cursor/mcp.json (or .cursor/mcp.json in a project)",
            "json",
            _json({"mcpServers": {SERVER_NAME: cursor}}),
        ),
        ClientSetup("ChatGPT and claude.ai", "custom connector", "text", _connector(url, oauth)),
    ]


def _connector(url: str, oauth: bool) -> str:
    if oauth and url.startswith("https://"):
        return (
            f"Add a custom connector with the URL {url}\n"
            "(ChatGPT: Settings > Connectors; claude.ai: Settings > Connectors), then sign in."
        )
    return (
        "They sign in with OAuth at a public HTTPS URL, not with a bearer token:\n"
        "GITHUB_MCP_PUBLIC_URL=https://your-host make run AUTH=oauth, then add\n"
        "https://your-host/mcp as a custom connector (docs/DEPLOY.md, 'Hosted')."
    )


def port_problem(host: str, port: int) -> str | None:
    """Why `host:port` cannot be listened on, with a suggestion; None when it can. Binds
    as uvicorn does (SO_REUSEADDR), so a port in TIME_WAIT is not reported as taken."""
    try:
        _try_bind(host, port)
    except OSError as exc:
        if exc.errno != errno.EADDRINUSE:
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}."
        free = _free_port_after(host, port)
        hint = f"make run PORT={free}" if free else "make run PORT=<another port>"
        flag = f" (or: serve --transport http --port {free})" if free else ""
        return (
            f"port {port} on {host} is already in use (another server, or an earlier "
            f"`make run` still running).\n  Try: {hint}{flag}"
        )
    return None


def _try_bind(host: str, port: int) -> None:
    infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    for family, kind, proto, _name, address in infos:
        with socket.socket(family, kind, proto) as sock:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            sock.bind(address)


def _free_port_after(host: str, port: int) -> int | None:
    for candidate in range(port + 1, min(port + 50, 65536)):
        try:
            _try_bind(host, candidate)
        except OSError:
            continue
        return candidate
    return None


def print_client_config(
    host: str, port: int, settings: Settings, token: str | None, notes: list[str]
) -> None:
    from github_mcp.hosted import public_base_url
    from github_mcp.serving.exposure import is_loopback

    oauth = settings.auth_mode == "oauth"
    base = (
        public_base_url(settings, host, port, loopback=is_loopback(host))
        if oauth
        else f"http://{host}:{port}"
    )
    url = f"{base}/mcp"
    how = "OAuth sign-in with GitHub" if oauth else "bearer token"
    lines = [
        "",
        f"GitHub MCP Controller is serving at {url} ({how})",
        f"  GitHub API: {settings.github_api_url}",
        f"  Health:     {base}/healthz",
        "  Cards:      Claude, ChatGPT and other MCP Apps hosts show pull requests, CI failures",
        "              and diffs as interactive cards; to see them here: make apps-preview",
    ]
    if oauth:
        lines.append(f"  Status:     {base}/status  (sign in with GitHub: your own activity)")
    if token:
        if not oauth:
            lines.append(f"  Status:     {base}/status  (sign in with the token below)")
        lines.append(
            f"  Bearer token for this run: {token}" + ("  (operators: /status)" if oauth else "")
        )
    lines += [*notes, ""]
    for setup in client_setups(url, token, oauth=oauth):
        lines += setup.lines()
    lines += ["Press Ctrl-C to stop.", ""]
    print("\n".join(lines), file=sys.stderr, flush=True)
