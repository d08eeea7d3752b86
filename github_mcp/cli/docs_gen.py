"""Generate docs/TOOLS.md (from the registry), docs/CONFIG.md (from Settings) and
docs/PARITY.md (from the parity table)."""

from __future__ import annotations

from pathlib import Path

from github_mcp.config import Settings

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
    return "\n".join(lines + _start_lines() + _otel_lines()) + "\n"


def _start_lines() -> list[str]:
    return [
        "",
        "## Read at start, before the settings",
        "",
        "| variable | description |",
        "|---|---|",
        "| `GITHUB_MCP_FAST_START` | `0` turns off the stdio front: no cached or shipped "
        "answers to `initialize` and `tools/list`, and no read calls answered without the "
        "MCP framework (everything goes to the server). On by default. |",
    ]


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


def tools_markdown() -> str:
    from github_mcp import tools as _tools  # noqa: F401
    from github_mcp.pipeline.registry import REGISTRY

    try:
        import extra_tools  # noqa: F401
    except ModuleNotFoundError:
        pass
    lines = [
        "# Tools",
        "",
        "Generated from the tool registry by `python main.py docs`; do not edit by hand.",
        "",
    ]
    by_set: dict[str, list] = {}
    for spec in REGISTRY.values():
        by_set.setdefault(spec.toolset, []).append(spec)
    for toolset in sorted(by_set):
        lines += [
            f"## {toolset}",
            "",
            "| tool | kind | target | description |",
            "|---|---|---|---|",
        ]
        for spec in sorted(by_set[toolset], key=lambda s: s.name):
            kind = "write" + (", destructive" if spec.destructive else "") if spec.write else "read"
            if not spec.write and spec.destructive:
                kind = "local, destructive"  # changes only the server's side, e.g. a clone
            params, _ = spec.signature()
            args = ", ".join(p.name for p in params)
            lines.append(
                f"| `{spec.name}({args})` | {kind} | {spec.target_label or ''} | "
                f"{spec.description.replace('|', '/')} |"
            )
        lines.append("")
    return "\n".join(lines)


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
    from github_mcp.cli.opening_gen import write_opening

    written.append(write_opening())  # after the docs: it records the server as it is now
    return written
