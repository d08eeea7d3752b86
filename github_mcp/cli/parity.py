"""Which of our tools stand in for each tool of the official GitHub MCP server.

The table is data (`github_mcp/cli/parity.toml`): `docs/PARITY.md` is generated from it
(`python main.py docs`), and a test checks that every tool named there is registered, every
official tool has one row, and every test a row names exists and calls one of its tools. A
row with no tools of ours reads `not yet`; only `ui_get` is `not offered`; a row of ours that
names no test reads `untested`.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import BaseModel, ConfigDict, Field, model_validator

__all__ = [
    "NOT_OFFERED",
    "NOT_YET",
    "PARITY",
    "ROWS",
    "UNTESTED",
    "Parity",
    "load_rows",
    "parity_markdown",
]

TABLE = Path(__file__).with_name("parity.toml")
NOT_YET = "not yet"
NOT_OFFERED = "not offered"
UNTESTED = "untested"
TEST_ID = r"^tests/[A-Za-z0-9_/]+\.py::test_[A-Za-z0-9_]+$"


@dataclass(frozen=True)
class Parity:
    official: str
    ours: tuple[str, ...] = ()
    adds: str = ""  # what ours adds
    not_offered: str = ""  # why this server will not offer it (only ui_get)
    tests: tuple[str, ...] = ()  # path::name of the tests that show ours doing its job


class _Entry(BaseModel):
    """One [[row]] of the file: official tools that ours serve the same way."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    official: tuple[str, ...] = Field(min_length=1)
    ours: tuple[str, ...] = ()
    adds: str = ""
    not_offered: str = ""
    tests: tuple[Annotated[str, Field(pattern=TEST_ID)], ...] = ()

    @model_validator(mode="after")
    def _offered_or_not(self) -> _Entry:
        if self.ours and self.not_offered:
            raise ValueError(f"{self.official}: both offered (ours) and not_offered")
        return self


class _Table(BaseModel):
    model_config = ConfigDict(extra="forbid")
    row: list[_Entry]


def load_rows(text: str) -> tuple[Parity, ...]:
    """The table's rows, one per official tool; a malformed file raises ValueError."""
    table = _Table.model_validate(tomllib.loads(text))
    rows = tuple(
        Parity(name, entry.ours, entry.adds, entry.not_offered, entry.tests)
        for entry in table.row
        for name in entry.official
    )
    names = [row.official for row in rows]
    twice = sorted({name for name in names if names.count(name) > 1})
    if twice:
        raise ValueError(f"official tools in more than one row: {', '.join(twice)}")
    return rows


ROWS = load_rows(TABLE.read_text(encoding="utf-8"))
PARITY: dict[str, Parity] = {row.official: row for row in ROWS}


def parity_markdown(rows: tuple[Parity, ...] = ROWS) -> str:
    covered = sum(1 for row in rows if row.ours)
    tested = sum(1 for row in rows if row.ours and row.tests)
    lines = [
        "# Parity with the official GitHub MCP server",
        "",
        "Generated from `github_mcp/cli/parity.toml` by `python main.py docs`; "
        "do not edit by hand.",
        "",
        f"One row per tool of the official server (github/github-mcp-server), {len(rows)} "
        f"in all, {covered} covered, {tested} of them shown by a named test. The second "
        "column names the tool(s) of this server that do its job (or says `not yet`), the "
        "third what ours adds, the fourth the tests (in `tests/`) that call ours through a "
        "real MCP client against the sandbox forge to do that job (or says `untested`).",
        "",
        "| official | ours | what ours adds | shown by |",
        "|---|---|---|---|",
    ]
    for row in sorted(rows, key=lambda r: r.official):
        ours = ", ".join(row.ours) or (NOT_OFFERED if row.not_offered else NOT_YET)
        adds = row.adds or row.not_offered
        shown = "<br>".join(f"`{t.removeprefix('tests/')}`" for t in row.tests)
        shown = shown or (UNTESTED if row.ours else "")
        lines.append(f"| {row.official} | {ours} | {adds.replace('|', '/')} | {shown} |")
    return "\n".join(lines) + "\n"
