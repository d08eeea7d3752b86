"""Which of our tools stand in for each tool of the official GitHub MCP server.

The table is data (`github_mcp/cli/parity_rows.py`): `docs/PARITY.md` is generated from it
(`python main.py docs`), and a test checks that every tool named here is registered and every
official tool has one row. A row with no tools of ours reads `not yet`; only `ui_get` is
`not offered`.
"""

from __future__ import annotations

from github_mcp.cli.parity_rows import NOT_OFFERED, NOT_YET, ROWS, Parity

__all__ = ["NOT_OFFERED", "NOT_YET", "PARITY", "Parity", "parity_markdown"]

PARITY: dict[str, Parity] = {row.official: row for row in ROWS}


def parity_markdown() -> str:
    covered = sum(1 for row in ROWS if row.ours)
    lines = [
        "# Parity with the official GitHub MCP server",
        "",
        "Generated from `github_mcp/cli/parity_rows.py` by `python main.py docs`; "
        "do not edit by hand.",
        "",
        f"One row per tool of the official server (github/github-mcp-server), {len(ROWS)} "
        f"in all, {covered} covered. The second column names the tool(s) of this server "
        "that do its job (or says `not yet`), the third what ours adds.",
        "",
        "| official | ours | what ours adds |",
        "|---|---|---|",
    ]
    for row in sorted(ROWS, key=lambda r: r.official):
        ours = ", ".join(row.ours) or (NOT_OFFERED if row.not_offered else NOT_YET)
        adds = row.adds or row.not_offered
        lines.append(f"| {row.official} | {ours} | {adds.replace('|', '/')} |")
    return "\n".join(lines) + "\n"
