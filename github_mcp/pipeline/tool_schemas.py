"""A tool's schemas as clients see them, generated from its handler's signature with the
MCP framework's own function parsing (so they are what the framework would list).

Only the index generator (cli/generate.py) and the operator's extension tools come here:
serving reads the built-in tools' schemas from the tool index (tool_index.py), so neither
pydantic's schema generation nor the framework runs on a start.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from github_mcp.kernel.params import declare_repo_headers
from github_mcp.pipeline.schema_listing import listed_schema, validation_schema

if TYPE_CHECKING:
    from github_mcp.pipeline.tool_spec import ToolSpec


def parsed_schemas(spec: ToolSpec) -> tuple[dict[str, Any], dict[str, Any] | None]:
    """(the whole input schema, the output schema as listed)."""
    from fastmcp import Context
    from fastmcp.tools import FunctionTool
    from fastmcp.utilities.json_schema import dereference_refs

    params, output_model = spec.signature()

    async def template(ctx: Context, **kwargs: Any) -> None:
        raise RuntimeError("a schema template is never called")

    ctx_param = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context)
    signature = inspect.Signature([ctx_param, *params], return_annotation=output_model)
    template.__signature__ = signature  # type: ignore[attr-defined]
    template.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()} | {
        "return": output_model
    }
    template.__name__ = spec.name
    template.__doc__ = spec.description
    parsed = FunctionTool.from_function(template, name=spec.name, description=spec.description)
    # $refs inlined, as the framework lists them; the repository arguments headers too
    inputs = declare_repo_headers(validation_schema(dereference_refs(parsed.parameters)))
    raw_output = parsed.output_schema
    output = listed_schema(dereference_refs(raw_output)) if raw_output is not None else None
    return inputs, output
