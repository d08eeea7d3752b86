"""docs/TOOLS.md and docs/CONFIG.md are generated and must be current."""

from __future__ import annotations

from github_mcp.docs_gen import DOCS, config_markdown, tools_markdown


def test_config_doc_is_current():
    assert (DOCS / "CONFIG.md").read_text() == config_markdown(), "run: python main.py docs"


def test_tools_doc_is_current():
    assert (DOCS / "TOOLS.md").read_text() == tools_markdown(), "run: python main.py docs"


def test_config_doc_lists_every_setting():
    text = config_markdown()
    for name in (
        "GITHUB_TOKEN",
        "GITHUB_MCP_REPO_ALLOWLIST",
        "GITHUB_MCP_APPROVAL_MODE",
        "GITHUB_MAX_CONCURRENCY",
        "TOOL_STDOUT_MAX_CHARS",
        "GITHUB_MCP_AUTH_TOKENS",
    ):
        assert f"`{name}`" in text
