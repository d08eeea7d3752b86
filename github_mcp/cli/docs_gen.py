"""Generate docs/TOOLS.md (from the registry), docs/CONFIG.md (from Settings),
docs/PARITY.md (from the parity table) and the tool index (pipeline/tool_index.json)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from github_mcp.config import Settings

if TYPE_CHECKING:
    from github_mcp.pipeline.tool_index import ToolEntry
    from github_mcp.pipeline.tool_spec import ToolSpec

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"  # written only from a source checkout (cli/checkout.py)


def config_markdown() -> str:
    lines = [
        "# Configuration",
        "",
        "Generated from `github_mcp.config` by `python main.py docs`; do not edit by hand.",
        "",
        "| variable | type | default | description |",
        "|---|---|---|---|",
    ]
    for name, field in Settings.model_fields.items():
        alias = field.validation_alias
        names = list(getattr(alias, "choices", [])) or [name.upper()]
        annotation = str(field.annotation).replace("typing.", "").replace("pathlib.", "")
        annotation = annotation.replace("<class '", "").replace("'>", "").replace("|", "or")
        default = field.default
        if field.default_factory is not None:  # a per-user path (config/fields/_state_home.py)
            default = getattr(field.default_factory, "doc", None)
        default_text = "" if default is None else f"`{default}`"
        if "SecretStr" in annotation:
            annotation = "secret"
        desc = (field.description or "").replace("|", "\\|")
        lines.append(f"| `{'` / `'.join(names)}` | {annotation} | {default_text} | {desc} |")
    return "\n".join(lines + _otel_lines()) + "\n"


def _otel_lines() -> list[str]:
    from github_mcp.monitoring.tracing import OTEL_VARIABLES

    lines = [
        "",
        "## OpenTelemetry",
        "",
        "Traces (a span per tool call, with children for GitHub requests and git or workspace",
        "processes) are exported over OTLP/HTTP when the standard variables below ask for it.",
        "",
        "| variable | description |",
        "|---|---|",
    ]
    lines += [f"| `{name}` | {desc} |" for name, desc in OTEL_VARIABLES]
    return lines


TOOLS_INTRO = (
    "Every tool, by toolset (declared in `github_mcp/catalog/toolsets.toml`). kind: read or "
    "write (a write is gated: `target` is what the write policy checks it by, `unscoped` "
    "when nothing names a branch); destructive: deletes, merges, force pushes, or a local "
    "clone removed. binding: what a write's approval is bound to (`bound`: remote state "
    "read when the write is gated, shown to the human and checked again before the write; "
    "`arguments only`: the arguments are the whole effect; the full text under Approval "
    "bindings). tasks: the tool may run as an MCP task (a long call the client polls). "
    "home: its module below `github_mcp/tools/`, beside its service in "
    "`github_mcp/services/`."
)


def _tool_row(spec: ToolSpec) -> str:
    from github_mcp.pipeline.tool_spec import binding_text

    kind = "write" + (", destructive" if spec.destructive else "") if spec.write else "read"
    if not spec.write and spec.destructive:
        kind = "local, destructive"  # changes only the server's side, e.g. a clone
    params, _ = spec.signature()
    args = ", ".join(p.name for p in params)
    binding = binding_text(spec.binds).split(":")[0] if spec.write else ""
    home = spec.handler.__module__.removeprefix("github_mcp.tools.")
    return (
        f"| `{spec.name}({args})` | {kind} | {spec.target_label or ''} | {binding} | "
        f"{'yes' if spec.tasks else ''} | {home.removeprefix('github_mcp.')} | "
        f"{spec.description.replace('|', '/')} |"
    )


def tools_markdown() -> str:
    from github_mcp import tools as _tools  # noqa: F401
    from github_mcp.apps import approval_tool as _card  # noqa: F401 - the card's own tool
    from github_mcp.catalog.toolsets import toolsets
    from github_mcp.pipeline.registry import REGISTRY

    try:
        import extra_tools  # noqa: F401
    except ModuleNotFoundError:
        pass
    sets = toolsets((spec.name, str(spec.toolset)) for spec in REGISTRY.values())
    lines = [
        "# Tools",
        "",
        "Generated from the tool registry by `python main.py docs`; do not edit by hand.",
        "",
        TOOLS_INTRO,
        "",
        "| toolset | listed by default | tools | description |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| [{t.id}](#{t.id}) | {'yes' if t.default else ''} | {len(t.tools)} | {t.description} |"
        for t in sets
    ]
    for t in sorted(sets, key=lambda t: t.id):
        listed = "Listed by default." if t.default else "Listed on request (enable_toolset)."
        lines += ["", f"## {t.id}", "", f"{t.description} {listed}", ""]
        lines += [
            "| tool | kind | target | binding | tasks | home | description |",
            "|---|---|---|---|---|---|---|",
        ]
        lines += [_tool_row(REGISTRY[name]) for name in t.tools]
    lines.append("")
    return "\n".join(lines + _binding_lines([s for s in REGISTRY.values() if s.write]))


def _binding_lines(writes: list[ToolSpec]) -> list[str]:
    """Every write tool's approval binding (`@tool(binds=…)`), in words."""
    from github_mcp.pipeline.tool_spec import binding_text

    lines = [
        "## Approval bindings",
        "",
        "What the approval of each write tool is bound to. `bound:` the remote state read "
        "when the write is gated, shown to the human and checked again before the write "
        "(changed meanwhile: `conflict`, nothing written). `arguments only:` no remote "
        "state changes what the write does, and why. The reads that feed the "
        "cross-visibility guard's record are listed in "
        "[SAFETY.md](SAFETY.md#provenance-from-responses).",
        "",
        "| tool | toolset | binding |",
        "|---|---|---|",
    ]
    for spec in sorted(writes, key=lambda s: (s.toolset, s.name)):
        text = binding_text(spec.binds).replace("|", "/")
        lines.append(f"| `{spec.name}` | {spec.toolset} | {text} |")
    return [*lines, ""]


def write_docs() -> list[Path]:
    from github_mcp.cli.checkout import NO_DOCS_HERE, source_checkout

    if source_checkout() != ROOT:
        raise SystemExit(NO_DOCS_HERE)
    written = []
    from github_mcp.cli.parity import parity_markdown

    pages = (
        ("TOOLS.md", tools_markdown()),
        ("CONFIG.md", config_markdown()),
        ("PARITY.md", parity_markdown()),
    )
    for name, text in pages:
        path = DOCS / name
        path.write_text(text)
        written.append(path)
    written.append(write_tool_index())
    return written


def builtin_entries() -> list[ToolEntry]:
    """Every built-in tool as a client sees it, in the order the server lists them (the
    order an import of every tool module registers them in)."""
    from github_mcp import tools as _tools  # noqa: F401 - registers the tools
    from github_mcp.apps import approval_tool as _card  # noqa: F401 - and the card's
    from github_mcp.pipeline.registry import REGISTRY
    from github_mcp.pipeline.served import entry_of

    return [
        entry_of(spec)
        for spec in REGISTRY.values()
        if spec.handler.__module__.startswith("github_mcp.")
    ]


def write_tool_index() -> Path:
    from github_mcp.pipeline.tool_index import INDEX_PATH, render

    INDEX_PATH.write_text(render(builtin_entries()), encoding="utf-8")
    return INDEX_PATH
