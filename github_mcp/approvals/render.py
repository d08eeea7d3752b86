"""The approval page's account of one write, as HTML: what the human reads is what is
written. Every text is escaped and its hidden or reordering characters (bidi controls,
zero-width characters, control characters) are shown as `⟨U+202E⟩`; titles, messages and
bodies are shown in full in scrollable boxes; every file has its +/− counts and diff; the
remote state the approval binds (head SHA, base, the commits since the base with their
full messages, the files at that head) is listed; look-alike names carry a warning.
The facts come from facts.py, which also feeds the proposed-write card."""

from __future__ import annotations

import html
from typing import Any

from github_mcp.approvals.facts import write_facts
from github_mcp.approvals.record import ApprovalRequest
from github_mcp.kernel.hidden_text import make_visible

STYLE = """
body{font:15px/1.45 system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse}td,th{padding:.25rem .75rem;text-align:left;vertical-align:top}
th{color:#555;font-weight:600}.add{color:#116329}.del{color:#a40e26}
button{font:inherit;padding:.5rem 1rem;margin-right:.5rem;cursor:pointer}
.full,.diff{white-space:pre-wrap;overflow:auto;max-height:24rem;margin:0;unicode-bidi:isolate;
direction:ltr;border:1px solid #ddd;padding:.4rem;font:13px/1.4 ui-monospace,monospace}
.diff .add,.diff .del,.diff .hunk{display:block}.diff .hunk{color:#555}
#warnings{background:#fff4d6;border:2px solid #b58100;padding:.5rem 1rem .5rem 2rem}
code{unicode-bidi:isolate;direction:ltr}
"""


def h(text: str) -> str:
    """Escaped for HTML, with hidden characters made visible."""
    return html.escape(make_visible(text))


def summary_html(found: ApprovalRequest) -> str:
    """The page's account of the request, rendered from the same facts the card gets."""
    facts = write_facts(found)
    if facts["session_writes"]:
        return _table(facts["rows"])
    return (
        _warnings_html(facts["warnings"])
        + _table(facts["rows"])
        + _files_html(facts["files"])
        + _state_html(facts["state"])
    )


def _table(rows: list[list[str]]) -> str:
    cells = "".join(f"<tr><th>{h(k)}</th><td>{_value(v)}</td></tr>" for k, v in rows)
    return f'<table id="write">{cells}</table>'


def _value(text: str) -> str:
    """Short one-line values inline; anything longer in a scrollable box, in full."""
    if "\n" in text or len(text) > 80:
        return f'<div class="full">{h(text)}</div>'
    return h(text)


def _warnings_html(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{h(w)}</li>" for w in warnings)
    return f'<div id="warnings"><strong>Look-alike names</strong><ul>{items}</ul></div>'


def _counts(added: int | None, removed: int | None) -> str:
    if added is None and removed is None:
        return ""
    return f' <span class="add">+{added or 0}</span> <span class="del">−{removed or 0}</span>'


def _files_html(files: list[dict[str, Any]]) -> str:
    if not files:
        return ""
    items, diffs = [], []
    for change in files:
        note = f" ({h(change['note'])})" if change["note"] else ""
        items.append(
            f'<li data-path="{h(change["path"])}">{h(change["change"])} '
            f"<code>{h(change['path'])}</code>{_counts(change['added'], change['removed'])}"
            f"{note}</li>"
        )
        if change["diff"]:
            diffs.append(_diff_html(change["path"], change["diff"]))
    rendered = f'<h2>Diff</h2><div id="diffs">{"".join(diffs)}</div>' if diffs else ""
    return f'<h2>Files</h2><ul id="files">{"".join(items)}</ul>{rendered}'


def _diff_html(path: str, diff: str) -> str:
    lines = []
    for line in diff.splitlines():
        kind = (
            "hunk" if line.startswith("@@")
            else "add" if line.startswith("+") and not line.startswith("+++")
            else "del" if line.startswith("-") and not line.startswith("---")
            else ""
        )  # fmt: skip
        lines.append(f'<span class="{kind}">{h(line)}</span>' if kind else h(line) + "\n")
    return f'<pre class="diff" data-path="{h(path)}">{"".join(lines)}</pre>'


def _state_html(state: dict[str, Any] | None) -> str:
    if state is None:
        return ""
    facts = "".join(
        f'<tr><th>{h(name)}</th><td><code data-fact="{h(name)}">{h(value)}</code></td></tr>'
        for name, value in state["facts"]
    )
    texts = "".join(f"<tr><th>{h(k)}</th><td>{_value(v)}</td></tr>" for k, v in state["texts"])
    out = (
        "<h2>Approving exactly this state</h2><p>The write is refused if it has changed "
        f'when the write runs.</p><table id="state">{facts}{texts}</table>'
    )
    if state["since"] is not None:
        commits = "".join(
            f'<li><code>{h(c["sha"])}</code><div class="full">{h(c["message"])}</div></li>'
            for c in state["commits"]
        )
        out += (
            f"<h2>{state['commits_total']} commit(s) since {h(state['since'])}</h2>"
            f'<ol id="commits">{commits}</ol>'
        )
    if state["files"]:
        items = "".join(
            f'<li data-path="{h(f["path"])}">{h(f["status"])} <code>{h(f["path"])}</code>'
            f"{_counts(f['added'], f['removed'])}</li>"
            for f in state["files"]
        )
        diffs = "".join(_diff_html(f["path"], f["diff"]) for f in state["files"] if f["diff"])
        where = "at that head" if state["since"] is not None else "in this commit"
        out += f'<h2>Files {where}</h2><ul id="head-files">{items}</ul>{diffs}'
    return out
