"""Small HTML pieces of the status page: sparklines, ratio bars, tables, value formats, CSS."""

from __future__ import annotations

import html
import time
from collections.abc import Sequence
from typing import Any


def sparkline(
    values: Sequence[float], *, width: int = 120, height: int = 24, label: str = ""
) -> str:
    """An inline SVG polyline of `values` (oldest first); empty when there is nothing."""
    if not values:
        return '<span class="muted">no data</span>'
    top = max(values) or 1.0
    step = width / max(len(values) - 1, 1)
    points = " ".join(
        f"{i * step:.1f},{height - 2 - (v / top) * (height - 4):.1f}" for i, v in enumerate(values)
    )
    if len(values) == 1:
        points += f" {width:.1f},{height - 2 - (values[0] / top) * (height - 4):.1f}"
    title = html.escape(f"{label} min {min(values):g} max {max(values):g} last {values[-1]:g}")
    return (
        f'<svg class="spark" width="{width}" height="{height}" viewBox="0 0 {width} {height}" '
        f'role="img" aria-label="{title}"><title>{title}</title>'
        f'<polyline fill="none" stroke="#2f6fde" stroke-width="1.5" points="{points}"/></svg>'
    )


def ratio_bar(ratio: float | None) -> str:
    if ratio is None:
        return '<span class="muted">-</span>'
    width = round(ratio * 80)
    return (
        f'<svg class="bar" width="80" height="10" viewBox="0 0 80 10" role="img" '
        f'aria-label="{ratio:.0%}"><rect width="80" height="10" fill="#e4e8ef"/>'
        f'<rect width="{width}" height="10" fill="#3a9b5c"/></svg> {ratio:.1%}'
    )


def duration_text(seconds: float) -> str:
    seconds = int(seconds)
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    parts = [f"{days} d"] if days else []
    if days or hours:
        parts.append(f"{hours} h")
    if days or hours or minutes:
        parts.append(f"{minutes} min")
    parts.append(f"{secs} s")
    return " ".join(parts[:3])


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def clock_text(ts: float | None) -> str:
    if not ts:
        return "-"
    return time.strftime("%Y-%m-%d %H:%M:%SZ", time.gmtime(ts))


def short_text(value: Any, keep: int = 12) -> str:
    text = "" if value is None else str(value)
    return text if len(text) <= keep else text[:keep] + "…"


def num_text(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def html_table(table_id: str, headers: Sequence[str], rows: list[str], empty: str) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join(rows) or f'<tr><td colspan="{len(headers)}" class="muted">{empty}</td></tr>'
    return f'<table id="{table_id}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def html_dl(dl_id: str, pairs: Sequence[tuple[str, str]]) -> str:
    items = "".join(f"<dt>{html.escape(k)}</dt><dd>{v}</dd>" for k, v in pairs)
    return f'<dl id="{dl_id}">{items}</dl>'


def html_row(cells: Sequence[str], cls: str = "") -> str:
    attr = f' class="{cls}"' if cls else ""
    return f"<tr{attr}>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


# The status page's style sheet (inline: its Content-Security-Policy loads nothing).
CSS = """
body{font:14px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:0;color:#1d2430;
background:#f6f7f9}
header{background:#1d2430;color:#fff;padding:14px 28px;display:flex;flex-wrap:wrap;
align-items:center;justify-content:space-between;gap:8px 16px}
#sign-out button{background:transparent;color:#fff;border:1px solid #c9d1dd;border-radius:6px;
padding:4px 12px;font:inherit;cursor:pointer}
header h1{font-size:20px;margin:0}
header p{margin:4px 0 0;color:#c9d1dd}
main{padding:8px 28px 28px;display:grid;grid-template-columns:repeat(auto-fit,minmax(440px,1fr));
gap:16px}
section{background:#fff;border:1px solid #dde2ea;border-radius:6px;padding:12px 16px}
section.wide{grid-column:1/-1}
h2{font-size:15px;margin:0 0 8px}
table{border-collapse:collapse;width:100%}
th,td{border-bottom:1px solid #edf0f4;padding:3px 8px;text-align:left;vertical-align:middle}
th{font-weight:600;color:#4b5565;background:#f9fafb}
td.n,th.n{text-align:right}
dl{display:grid;grid-template-columns:max-content 1fr;gap:2px 14px;margin:0}
dt{color:#4b5565}dd{margin:0}
.muted{color:#8a93a3}.ok{color:#2d7a4a}.warn{color:#a15c00}.bad{color:#b42318}
tr.err td{background:#fff4f2}
code{font:12px ui-monospace,SFMono-Regular,Menlo,monospace}
"""
