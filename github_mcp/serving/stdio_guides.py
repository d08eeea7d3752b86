"""Prompts, resources and completions over stdio: catalog/'s definitions (the same the
HTTP server registers on the framework, framework_guides.py) answered as MCP puts them on
the wire."""

from __future__ import annotations

from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from github_mcp.apps.catalog import VIEWS
from github_mcp.apps.listing import UI_MIME_TYPE
from github_mcp.catalog import prompts, resources, run_resource
from github_mcp.catalog.completions import Completer
from github_mcp.pipeline.peer import Peer
from github_mcp.serving.request_meta import RpcError

if TYPE_CHECKING:
    from github_mcp.pipeline.runtime import Runtime
    from github_mcp.pipeline.views import View

INVALID_PARAMS = -32602
NO_NETWORK: dict[str, list[str]] = {"connectDomains": [], "resourceDomains": [], "frameDomains": []}


class Guides:
    """One stdio client's prompts, resources and completions."""

    def __init__(self, rt: Runtime, view: View) -> None:
        self.rt = rt
        self.view = view
        self.prompts = prompts.prompts(rt)
        self.completer = Completer(rt, resources.BLOB_TEMPLATE)

    async def answer(
        self, method: str, params: dict[str, Any], *, ui: bool, modern: bool
    ) -> dict[str, Any]:
        if method == "prompts/list":
            return {"prompts": [_prompt(d) for d in self.prompts.values()]}
        if method == "prompts/get":
            return self._render(params)
        if method == "resources/list":
            return {"resources": self._resources(ui)}
        if method == "resources/templates/list":
            return {"resourceTemplates": self._templates()}
        if method == "resources/read":
            return await self._read(params, modern)
        return await self._complete(params)

    def _render(self, params: dict[str, Any]) -> dict[str, Any]:
        name = params.get("name")
        definition = self.prompts.get(name) if isinstance(name, str) else None
        if definition is None:
            raise RpcError(INVALID_PARAMS, f"Unknown prompt: {name}", {"prompt": name})
        given = params.get("arguments") or {}
        if not isinstance(given, dict):
            raise RpcError(INVALID_PARAMS, "arguments must be an object", {"prompt": name})
        missing = definition.missing(given)
        if missing:
            problem = f"Missing required argument(s) for prompt {name!r}: " + ", ".join(missing)
            raise RpcError(INVALID_PARAMS, problem, {"prompt": name, "missing": missing})
        try:
            text = definition.render({k: str(v) for k, v in given.items()})
        except prompts.PromptArgumentError as exc:
            raise RpcError(INVALID_PARAMS, str(exc), {"prompt": name}) from None
        message = {"role": "user", "content": {"type": "text", "text": text}}
        return {"description": definition.description, "messages": [message]}

    def _resources(self, ui: bool) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = [
            {
                "name": prompts.CONTRACT_NAME,
                "uri": prompts.CONTRACT_URI,
                "description": prompts.CONTRACT_DESCRIPTION,
                "mimeType": "text/markdown",
            }
        ]
        if ui:
            listed += [
                {
                    "name": view.name,
                    "title": view.title,
                    "uri": view.uri,
                    "description": view.description,
                    "mimeType": UI_MIME_TYPE,
                    "_meta": _card_meta(),
                }
                for view in VIEWS
            ]
        return listed

    def _templates(self) -> list[dict[str, Any]]:
        listed = []
        if "get_file_contents" in self.rt.bound_specs:
            listed.append(
                {
                    "name": resources.BLOB_NAME,
                    "uriTemplate": resources.BLOB_TEMPLATE,
                    "description": resources.BLOB_DESCRIPTION,
                    "mimeType": "text/plain",
                }
            )
        if run_resource.RUN_TOOL in self.rt.bound_specs:
            listed.append(
                {
                    "name": run_resource.RUN_NAME,
                    "uriTemplate": run_resource.RUN_TEMPLATE,
                    "description": run_resource.RUN_DESCRIPTION,
                    "mimeType": run_resource.RUN_MIME,
                }
            )
        return listed

    async def _read(self, params: dict[str, Any], modern: bool) -> dict[str, Any]:
        uri = params.get("uri")
        if not isinstance(uri, str):
            raise RpcError(INVALID_PARAMS, "uri must be a string")
        if uri == prompts.CONTRACT_URI:
            text = prompts.contract(self.rt)
            return {"contents": [{"uri": uri, "mimeType": "text/markdown", "text": text}]}
        card = next((view for view in VIEWS if view.uri == uri), None)
        if card is not None:
            content = {"uri": uri, "mimeType": UI_MIME_TYPE, "_meta": _card_meta()}
            return {"contents": [{**content, "text": card.html()}]}
        try:
            content = await self._read_template(uri)
        except resources.ResourceFailure as exc:
            failure = resources.read_error(exc.envelope, uri, modern)
            raise RpcError(failure.code, failure.message, failure.data) from None
        return {"contents": [{"uri": uri, **content}]}

    async def _read_template(self, uri: str) -> dict[str, Any]:
        """A file at a ref or a workflow run (resources.ResourceFailure if neither)."""
        bound = self.rt.bound_specs
        arguments = resources.blob_arguments(uri)
        if arguments is not None and "get_file_contents" in bound:
            return await resources.read_blob(self.rt, Peer(self.view), arguments)
        arguments = run_resource.run_arguments(uri)
        if arguments is not None and run_resource.RUN_TOOL in bound:
            return await run_resource.read_run(self.rt, Peer(self.view), arguments)
        envelope = {"error": {"code": "not_found", "message": f"no resource at {uri}"}}
        raise resources.ResourceFailure(envelope)

    async def _complete(self, params: dict[str, Any]) -> dict[str, Any]:
        ref, argument = params.get("ref"), params.get("argument")
        if not isinstance(ref, dict) or not isinstance(argument, dict):
            raise RpcError(INVALID_PARAMS, "completion/complete needs ref and argument objects")
        context = params.get("context") if isinstance(params.get("context"), dict) else {}
        values = await self.completer(
            SimpleNamespace(uri=ref.get("uri"), name=ref.get("name")),
            SimpleNamespace(name=str(argument.get("name")), value=str(argument.get("value", ""))),
            SimpleNamespace(arguments=(context or {}).get("arguments") or {}),
        )
        return {"completion": {"values": values, "total": len(values), "hasMore": False}}


def _prompt(definition: prompts.PromptDef) -> dict[str, Any]:
    return {
        "name": definition.name,
        "description": definition.description,
        "arguments": [
            {"name": a.name, "description": a.description, "required": a.required}
            for a in definition.arguments
        ],
    }


def _card_meta() -> dict[str, Any]:
    return {"ui": {"csp": NO_NETWORK, "prefersBorder": True}}
