"""Cards are offered only to a client that declared the MCP Apps extension; every other
client sees exactly what it saw before (tool list, resources, results)."""

from __future__ import annotations

import json

from github_mcp.apps.approval_card import PROPOSED_WRITE_URI
from github_mcp.apps.catalog import VIEWS
from github_mcp.apps.wiring import CALLABLE_META
from tests.apps.conftest import UI_MIME, ui_client
from tests.conftest import DEMO_REPO, mcp_client

PR_CARD = "ui://github-mcp/pr-card.html"
PR_CARD_CALLS = next(v.calls for v in VIEWS if v.name == "pr-card")


async def _listing(client):
    tools = {t.name: t for t in await client.list_tools()}
    resources = {str(r.uri): r for r in await client.list_resources()}
    return tools, resources


async def test_a_client_without_the_extension_sees_no_card(make_runtime):
    async with mcp_client(make_runtime()) as client:
        tools, resources = await _listing(client)
    assert "get_pr_overview" in tools
    assert all(t.meta is None for t in tools.values()), [n for n, t in tools.items() if t.meta]
    assert not [uri for uri in resources if uri.startswith("ui://")]


async def test_a_ui_host_sees_each_card_linked_from_its_tools(make_runtime):
    rt = make_runtime()
    async with ui_client(rt) as client:
        tools, resources = await _listing(client)
    for view in VIEWS:
        assert resources[view.uri].mimeType == UI_MIME
        for name in view.tools:
            assert tools[name].meta == {
                "ui": {"resourceUri": view.uri},
                "openai/toolInvocation/invoking": view.invoking,
                "openai/toolInvocation/invoked": view.invoked,
            }
            assert 0 < len(view.invoking) <= 64 and 0 < len(view.invoked) <= 64
        for name in view.app_tools:
            assert tools[name].meta["ui"] == {"resourceUri": view.uri, "visibility": ["app"]}
    # every other write tool links the proposed-write card (a gated write shows it)
    writes = {name for name, spec in rt.bound_specs.items() if spec.write}
    for name in writes - {n for view in VIEWS for n in view.tools}:
        assert tools[name].meta == {"ui": {"resourceUri": PROPOSED_WRITE_URI}}
    linked = {n for n, t in tools.items() if t.meta is not None}
    assert linked == {n for view in VIEWS for n in (*view.tools, *view.app_tools)} | writes


async def test_a_host_without_the_mcp_app_mime_type_gets_no_cards(make_runtime):
    async with ui_client(make_runtime(), mime_types=["text/html;profile=other"]) as client:
        tools, resources = await _listing(client)
    assert tools["get_pr_overview"].meta is None
    assert PR_CARD not in resources


async def test_the_card_resource_is_html_with_an_empty_network_policy(make_runtime):
    async with ui_client(make_runtime()) as client:
        contents = await client.read_resource(PR_CARD)
    [content] = contents
    assert content.mimeType == UI_MIME
    assert content.text.startswith("<!doctype html>")
    assert content.meta["ui"]["csp"] == {
        "connectDomains": [],
        "resourceDomains": [],
        "frameDomains": [],
    }
    assert content.meta["ui"]["prefersBorder"] is True


async def test_results_are_the_same_with_and_without_the_extension(make_runtime):
    """The card reads the same structured content the model gets: nothing is added but,
    in `_meta`, which of the card's own calls this session can make."""
    rt = make_runtime()
    args = {"full_name": DEMO_REPO, "number": 1}
    async with mcp_client(rt) as plain:
        before = await plain.call_tool("get_pr_overview", args)
    async with ui_client(rt) as host:
        after = await host.call_tool("get_pr_overview", args)
    assert after.structured_content == before.structured_content
    assert [c.text for c in after.content] == [c.text for c in before.content]
    card_calls = after.meta.pop(CALLABLE_META)
    assert after.meta == before.meta and CALLABLE_META not in (before.meta or {})
    assert card_calls == dict.fromkeys(PR_CARD_CALLS, True)
    assert json.loads(before.content[0].text)["number"] == 1


async def test_the_default_tool_list_is_the_same_size_without_the_extension(make_runtime):
    """Linking a card costs bytes only in a UI host's list."""
    rt = make_runtime(toolsets="default")
    async with mcp_client(rt) as plain:
        plain_size = len(json.dumps([t.model_dump(mode="json") for t in await plain.list_tools()]))
    async with ui_client(rt) as host:
        # an app-only tool is a whole extra entry, for the card: not a link's bytes
        listed = [t for t in await host.list_tools() if not _for_cards_only(t)]
        host_size = len(json.dumps([t.model_dump(mode="json") for t in listed]))
    linked = sum(1 for t in listed if t.meta)
    assert host_size > plain_size
    assert host_size - plain_size < 200 * max(linked, 1)
    print(f"default list: {plain_size} bytes plain, {host_size} with cards ({linked} linked)")


def _for_cards_only(tool) -> bool:
    return (tool.meta or {}).get("ui", {}).get("visibility") == ["app"]
