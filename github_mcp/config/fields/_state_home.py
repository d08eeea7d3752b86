"""Where the server keeps its files when no setting names a place: a directory of the
user's own ($XDG_STATE_HOME, else ~/.local/state), never the directory a command was
started in (a `call` or `serve` run from a checkout left a `var/` behind)."""

from __future__ import annotations

import os
from pathlib import Path

APP_DIR = "github-mcp-controller"


def state_home() -> Path:
    """$XDG_STATE_HOME/github-mcp-controller, or ~/.local/state/github-mcp-controller when
    the variable is unset or not absolute (the XDG rule for a relative value)."""
    base = os.environ.get("XDG_STATE_HOME", "")
    root = Path(base) if os.path.isabs(base) else Path.home() / ".local" / "state"
    return root / APP_DIR


class InStateHome:
    """A settings default: `name` under state_home(), resolved when the settings are read;
    `doc` is how docs/CONFIG.md shows it (the same on every machine)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.doc = f"~/.local/state/{APP_DIR}/{name}"

    def __call__(self) -> Path:
        return state_home() / self.name
