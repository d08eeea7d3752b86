"""The `make run` banner and the README tell a newcomer how to see the cards."""

from __future__ import annotations

import re

from github_mcp.apps.catalog import VIEWS
from github_mcp.cli.banner import print_client_config
from tests.conftest import ROOT


def test_the_make_run_banner_points_to_the_cards(make_settings, capsys):
    print_client_config("127.0.0.1", 8000, make_settings(), "a-token", [])
    banner = capsys.readouterr().err
    assert "interactive cards" in banner
    assert "make apps-preview" in banner


def test_the_readme_shows_every_card_and_how_to_see_it():
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## Cards in the chat (MCP Apps)", 1)[1].split("\n## ", 1)[0]
    pictures = re.findall(r"\]\((docs/apps-[\w-]+\.png)\)", section)
    assert len(pictures) >= len(VIEWS)
    assert all((ROOT / p).stat().st_size > 1000 for p in pictures)
    assert "make apps-preview" in section and "Claude" in section and "ChatGPT" in section
    for view in VIEWS:
        shown_for = view.tools[0] if view.tools else "merge_pull_request"  # any gated write
        assert f"`{shown_for}`" in section, view.name
    assert "apps-preview:" in (ROOT / "Makefile").read_text()
