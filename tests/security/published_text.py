"""Which arguments of a write tool are text it publishes, read from the registry's input
schemas: every string with no pattern, enum or format (at any depth: list items, mapping
values and keys), less the names below that refer to something rather than say it. A new
write tool with a free-text argument is on the list without anyone adding it."""

from __future__ import annotations

from typing import Any

from github_mcp.pipeline.tool_schemas import parsed_schemas
from github_mcp.pipeline.tool_spec import ToolSpec

# "tool.argument" or "*.argument": strings that name something the write acts on (a pull
# request, a path, a commit, an agent), never text it publishes
REFERENCES: dict[str, str] = {
    "*.pr": "a pull request by URL or owner/repo#number",
    "*.base_pr": "a pull request by URL or owner/repo#number",
    "*.dependent_pr": "a pull request by URL or owner/repo#number",
    "*.workdir": "a directory of the local clone",
    "*.paths": "files of the local clone to commit (their diffs are shown)",
    "*.target": "a release's target branch or commit",
    "*.comments.[].path": "the file a review comment is on",
    "assign_copilot_to_issue.custom_agent": "the name of a custom agent of the repository",
    "set_issue_type.type": "the name of one of the organisation's issue types",
    "update_label.name": "the label's present name",
    "delete_label.name": "the label's present name",
    "create_repository.name": "a repository name: letters, digits, '.', '-' and '_' only",
    "fork_repository.name": "a repository name: letters, digits, '.', '-' and '_' only",
    "update_project_items.field": "the name of one of the project's fields",
    "create_project_view.visible_fields": "names of the project's fields to show",
}


def _free_strings(schema: dict[str, Any], defs: dict[str, Any], path: str) -> list[str]:
    if "$ref" in schema:
        return _free_strings(defs[schema["$ref"].rsplit("/", 1)[-1]], defs, path)
    found: list[str] = []
    for key in ("anyOf", "oneOf", "allOf"):
        for part in schema.get(key, []):
            found += _free_strings(part, defs, path)
    kind = schema.get("type")
    if kind == "string" and not {"pattern", "enum", "const", "format"} & set(schema):
        found.append(path)
    if kind == "object":
        for name, part in (schema.get("properties") or {}).items():
            found += _free_strings(part, defs, f"{path}.{name}")
        values = [schema.get("additionalProperties")]
        values += list((schema.get("patternProperties") or {}).values())
        for part in values:
            if isinstance(part, dict):
                found += _free_strings(part, defs, f"{path}.*")
        if isinstance(schema.get("propertyNames"), dict):
            found += _free_strings(schema["propertyNames"], defs, f"{path}.<name>")
    if kind == "array" and isinstance(schema.get("items"), dict):
        found += _free_strings(schema["items"], defs, f"{path}.[]")
    return found


def _referring(tool: str, path: str) -> bool:
    top = path.split(".", 2)[1]
    names = {f"{tool}{path}", f"*{path}", f"{tool}.{top}", f"*.{top}"}
    return bool(names & set(REFERENCES))


def published_text(spec: ToolSpec) -> dict[str, list[str]]:
    """The arguments of a write tool that hold text it publishes: argument -> the paths
    inside it (".body", ".comments.[].body", ".files.*")."""
    schema = parsed_schemas(spec)[0]
    found: dict[str, list[str]] = {}
    for name, part in (schema.get("properties") or {}).items():
        paths = _free_strings(part, schema.get("$defs", {}), f".{name}")
        paths = [p for p in dict.fromkeys(paths) if not _referring(spec.name, p)]
        if paths:
            found[name] = paths
    return found
