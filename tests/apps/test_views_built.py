"""The committed cards (github_mcp/apps/views/*.html) are what `make views` builds from
views/, each one self-contained (nothing loaded from anywhere) and within its size budget."""

from __future__ import annotations

import gzip
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest

from github_mcp.apps.catalog import VIEWS

ROOT = Path(__file__).resolve().parents[2]
BUILT = ROOT / "github_mcp" / "apps" / "views"
BUDGET = 800 * 1024


class _Refs(HTMLParser):
    """Every tag, and every attribute that could load or link something."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.refs: list[tuple[str, str, str]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        for name, value in attrs:
            if name in {"src", "href", "srcset", "action", "poster", "data", "manifest"}:
                self.refs.append((tag, name, value or ""))


def _cards() -> list[Path]:
    return sorted(BUILT.glob("*.html"))


def test_every_view_is_built_and_every_built_file_is_a_view():
    assert {v.name for v in VIEWS} == {p.stem for p in _cards()}
    assert len(VIEWS) >= 1


@pytest.mark.parametrize("view", VIEWS, ids=lambda v: v.name)
def test_card_is_self_contained_and_within_budget(view):
    html = view.html()
    raw = len(html.encode())
    packed = len(gzip.compress(html.encode()))
    print(f"{view.name}: {raw / 1024:.1f} KB raw, {packed / 1024:.1f} KB gzip")
    assert raw <= BUDGET, f"{view.name} is {raw} bytes, over the {BUDGET} budget"
    parser = _Refs()
    parser.feed(html)
    assert parser.refs == [], f"{view.name} refers to something outside itself: {parser.refs}"
    assert "link" not in parser.tags and "iframe" not in parser.tags
    assert parser.tags.count("script") == 1 and parser.tags.count("style") == 1
    assert html.lower().count("</script") == 1  # the bundle cannot end its own script early
    style = html.split("<style>", 1)[1].split("</style>", 1)[0]
    assert "@import" not in style and "url(" not in style


def test_committed_cards_are_current_with_their_sources(tmp_path):
    """Rebuild from views/ with the packages the lock file pins: the bytes must match,
    so a change to a card's sources without `make views` fails here."""
    modules = subprocess.run(
        ["bash", str(ROOT / "tests" / "apps" / "fetch_views_deps.sh")],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    subprocess.run(
        ["node", str(ROOT / "views" / "build.mjs"), "--modules", modules, "--out", str(tmp_path)],
        check=True,
        capture_output=True,
    )
    rebuilt = {p.name: p.read_bytes() for p in tmp_path.glob("*.html")}
    committed = {p.name: p.read_bytes() for p in _cards()}
    assert rebuilt.keys() == committed.keys()
    stale = [name for name in rebuilt if rebuilt[name] != committed[name]]
    assert stale == [], f"run `make views`: {stale} differ from their sources"
