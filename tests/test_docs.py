"""docs/TOOLS.md, docs/CONFIG.md and the tool index are generated and must be current."""

from __future__ import annotations

from github_mcp.cli.docs_gen import DOCS, config_markdown, tools_markdown


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


def test_config_doc_lists_every_otel_variable_the_code_reads():
    import re

    from github_mcp.cli.docs_gen import ROOT

    source = (ROOT / "github_mcp" / "monitoring" / "tracing.py").read_text()
    read = set(re.findall(r'environ\.get\(\s*"(OTEL_[A-Z_]+)"', source))
    assert {"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_SERVICE_NAME"} <= read
    listed = set(re.findall(r"^\| `(OTEL_[A-Z_]+)` \|", (DOCS / "CONFIG.md").read_text(), re.M))
    assert read <= listed


def test_the_tool_index_is_current():
    """The served listing reads the index, so a stale one would list stale schemas."""
    from github_mcp.cli.docs_gen import builtin_entries
    from github_mcp.pipeline.tool_index import INDEX_PATH, render

    assert INDEX_PATH.read_text(encoding="utf-8") == render(builtin_entries()), (
        "run: python main.py docs"
    )
