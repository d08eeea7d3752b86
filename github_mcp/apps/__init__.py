"""MCP Apps (the io.modelcontextprotocol/ui extension): interactive cards for tool results.

Each card is one self-contained HTML file under `views/` (built from the repository's
`views/` sources by `make views`, committed so `make run` needs no npm), served as a
`ui://` resource. A tool that a card shows carries `_meta.ui.resourceUri` in tools/list,
but only for a client that declared the extension: any other client sees exactly the
tool list, text and structured content it saw before. See catalog.py for the cards.
"""
