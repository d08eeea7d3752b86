"""Opening answers shipped with the package: `initialize` and the first `tools/list` over
stdio on a first start, before the MCP framework has loaded.

`python main.py docs` records, in `opening.json` beside this module, what the server
itself answers (cli/opening_gen.py spawns it): the `initialize` result for each protocol
revision the handshake negotiates, and every tool's listing entry with its toolset,
whether it writes and its module (a first call then imports only the module it needs).
A start answers from the file when all of these hold, and leaves the answer to the
server otherwise:

- the file was recorded from this very code: its fingerprint is the hash of every module
  of this package and the versions of the MCP libraries and pydantic;
- the client offers a revision the handshake knows (or, in the 2026 revision, which has
  no handshake, names it in each request's `_meta`: then `server/discover` and
  `tools/list` are answered), and declares nothing beyond roots, sampling and
  elicitation (a client that shows cards, or declares extensions, is listed differently);
- the tools registered are the ones recorded (an operator's extra_tools.py that adds any
  means the server lists them).

The listing follows the same view as the server (catalog/views.py, with the settings'
toolsets, core mode and read-only), the order the server uses, and output schemas only
when GITHUB_MCP_OUTPUT_SCHEMAS asks for them. tests/perf/test_shipped_opening.py compares
both answers with the server's over a real stdio session for several settings.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import TYPE_CHECKING, Any

from github_mcp.catalog.views import CATALOG_TOOLS, settings_view
from github_mcp.serving import request_meta

if TYPE_CHECKING:
    from github_mcp.config import Settings

FORMAT = 1
PATH = Path(__file__).with_name("opening.json")
PACKAGE = Path(__file__).resolve().parents[1]
LIBRARIES = ("fastmcp", "mcp", "pydantic", "pydantic-core")
PLAIN_CAPABILITIES = {"roots", "sampling", "elicitation"}


def fingerprint() -> str:
    """What the recorded answers depend on: this package's code and the libraries'
    versions (contents, not timestamps: a checkout or an install has the same one)."""
    digest = hashlib.sha256(f"format {FORMAT}".encode())
    for library in LIBRARIES:
        try:
            digest.update(f"{library} {metadata.version(library)}\n".encode())
        except metadata.PackageNotFoundError:
            digest.update(f"{library} absent\n".encode())
    for path in sorted(PACKAGE.rglob("*.py")):
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(hashlib.sha256(path.read_bytes()).digest())
    return digest.hexdigest()


class ShippedOpening:
    """The recorded answers, shaped for one server's settings."""

    def __init__(self, recorded: dict[str, Any], settings: Settings) -> None:
        self.recorded = recorded
        self.settings = settings

    def initialize(self, params: dict[str, Any]) -> dict[str, Any] | None:
        version = params.get("protocolVersion")
        capabilities = params.get("capabilities")
        if not isinstance(capabilities, dict) or not set(capabilities) <= PLAIN_CAPABILITIES:
            return None
        if not isinstance(params.get("clientInfo"), dict):
            return None
        answer = self.recorded["initialize"].get(version) if isinstance(version, str) else None
        return dict(answer) if isinstance(answer, dict) else None

    def discover(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """`server/discover` of the 2026 revision, for a client like the ones above."""
        return dict(self.recorded["discover"]) if _plain_2026(params) else None

    def modern_listing(
        self, params: dict[str, Any], listing: dict[str, Any] | None
    ) -> dict[str, Any] | None:
        """A 2026-revision `tools/list` (first page): the listing, as that revision says it."""
        if listing is None or not _plain_2026(params) or params.get("cursor") is not None:
            return None
        return {**self.recorded["modern_list"], **listing}

    def tools_list(self, registered: dict[str, tuple[str, bool]]) -> dict[str, Any] | None:
        """The listing, unless something registered (name -> toolset, writes) was not
        recorded: the code is the recorded code, so only an operator's tool can be new."""
        tools = self.recorded["tools"]
        recorded = {t["name"]: (t["toolset"], t["write"]) for t in tools}
        if any(recorded.get(name) != kind for name, kind in registered.items()):
            return None
        settings = self.settings
        bound = [
            t
            for t in tools
            if t["toolset"] in settings.toolset_list and not (settings.read_only and t["write"])
        ]
        view = settings_view(settings)
        hidden = any(
            not view.shows_tool(t["name"], t["toolset"], t["write"], set())
            and not (view.read_only and t["write"])
            for t in bound
            if t["name"] not in CATALOG_TOOLS
        )
        listed = [
            self._entry(t["entry"])
            for t in bound
            if (
                hidden
                if t["name"] in CATALOG_TOOLS
                else view.shows_tool(t["name"], t["toolset"], t["write"], set())
            )
        ]
        listed += [self._entry(entry) for entry in self.recorded["other_tools"]]
        return {"tools": listed}

    def module_of(self, tool: str) -> str | None:
        """The built-in module that defines `tool`, as recorded."""
        for recorded in self.recorded["tools"]:
            if recorded["name"] == tool:
                module = recorded.get("module")
                return module if isinstance(module, str) else None
        return None

    def _entry(self, entry: dict[str, Any]) -> dict[str, Any]:
        if self.settings.output_schemas:
            return entry
        return {k: v for k, v in entry.items() if k != "outputSchema"}


def _plain_2026(params: dict[str, Any]) -> bool:
    meta = params.get("_meta")
    asks = request_meta.parse(meta)
    if asks is None or not asks.modern or asks.progress_token is not None:
        return False
    capabilities = meta.get(request_meta.CLIENT_CAPABILITIES) if isinstance(meta, dict) else None
    return isinstance(capabilities, dict) and set(capabilities) <= PLAIN_CAPABILITIES


def load(settings: Settings) -> ShippedOpening | None:
    """The shipped answers, when they were recorded from this code; else None."""
    try:
        recorded = json.loads(PATH.read_text())
    except (OSError, ValueError):
        return None
    if not isinstance(recorded, dict) or recorded.get("format") != FORMAT:
        return None
    if recorded.get("fingerprint") != fingerprint():
        return None
    return ShippedOpening(recorded, settings)
