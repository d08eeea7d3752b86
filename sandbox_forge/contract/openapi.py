"""A REST response held against GitHub's OpenAPI description (the npm package
@octokit/openapi, `generated/api.github.com.json`).

The description is large, so it is parsed once and its schemas are converted lazily: every
`$ref` becomes a URI that a `referencing` registry resolves on first use. OpenAPI 3.0
differs from JSON Schema in two ways that matter here, and the conversion handles both:

- `nullable: true` becomes a `"null"` type (or an `anyOf` with null).
- `oneOf` becomes `anyOf`: GitHub's alternatives overlap (for instance basic-error and
  repository-rule-violation-error accept the same bodies), so "exactly one" would reject
  responses GitHub itself sends.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

URN = "urn:github-openapi:"
API_PREFIX = "/api/v3"
# Paths the forge serves that are not REST operations (github.com's web side).
WEB_PATHS = re.compile(r"^/[^/]+/[^/]+/raw/")

SCHEMA_KEYWORDS = {"items", "additionalProperties", "not", "if", "then", "else"}
SCHEMA_MAPS = {"properties", "patternProperties"}
SCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
DROPPED = {"nullable", "discriminator", "example", "examples", "xml", "externalDocs"}
METHODS = ("get", "post", "put", "patch", "delete", "head")
# /repositories/{id}/… answers as /repos/{owner}/{repo}/… does (GitHub's stable id form)
BY_ID = re.compile(r"^/repositories/\d+(/.*)?$")
REDIRECT = {
    "type": "object",
    "required": ["message", "url"],
    "properties": {"message": {"type": "string"}, "url": {"type": "string", "format": "uri"}},
}


def load_description(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text())  # type: ignore[no-any-return]


def convert(node: Any) -> Any:
    """One OpenAPI 3.0 schema (and its subschemas) as JSON Schema 2020-12."""
    if isinstance(node, list):
        return [convert(item) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return {"$ref": URN + node["$ref"].removeprefix("#/")}
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED or key.startswith("x-"):
            continue
        if key in SCHEMA_MAPS and isinstance(value, dict):
            out[key] = {name: convert(sub) for name, sub in value.items()}
        elif key in SCHEMA_LISTS:
            out["anyOf" if key == "oneOf" else key] = [convert(sub) for sub in value]
        elif key in SCHEMA_KEYWORDS and isinstance(value, dict):
            out[key] = convert(value)
        else:
            out[key] = value
    return _nullable(out) if node.get("nullable") is True else out


def _nullable(out: dict[str, Any]) -> dict[str, Any]:
    """OpenAPI 3.0's `nullable: true` in JSON Schema terms: null joins the type (and the
    enum), or the schema becomes one of itself and null."""
    if not isinstance(out.get("type"), str):
        return {"anyOf": [out, {"type": "null"}]}
    out["type"] = [out["type"], "null"]
    if "enum" in out:
        out["enum"] = [*out["enum"], None]
    return out


def _escaped(name: str) -> str:
    """A JSON pointer token, as a $ref spells it."""
    return name.replace("~", "~0").replace("/", "~1")


def _resource(node: Any) -> Resource:
    return Resource.from_contents(convert(node), default_specification=DRAFT202012)


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    operation_id: str
    spec: dict[str, Any]
    strict: re.Pattern[str]
    loose: re.Pattern[str]

    @property
    def route(self) -> str:
        return f"{self.method} {self.template}"

    @property
    def specificity(self) -> tuple[int, int]:
        parts = self.template.strip("/").split("/")
        literal = sum(1 for p in parts if not p.startswith("{"))
        return literal, -len(parts)


# Parameters whose values may hold slashes (refs, branch and tag names, file paths, label
# names): the loose pattern lets them, and only them, span several path segments.
SLASHED = {"ref", "path", "branch", "basehead", "name", "tag", "dir", "head", "environment_name"}


def _patterns(template: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    pieces = re.split(r"(\{[^}]+\})", template)
    params = [i for i, p in enumerate(pieces) if p.startswith("{")]
    strict, loose = "", ""
    for i, piece in enumerate(pieces):
        if piece.startswith("{"):
            strict += "[^/]+"
            # "/contents/" is the root directory: its path is empty.
            loose += (".*" if i == params[-1] else ".+") if piece[1:-1] in SLASHED else "[^/]+"
        else:
            strict += re.escape(piece)
            loose += re.escape(piece)
    return re.compile(f"^{strict}$"), re.compile(f"^{loose}$")


class ContractValidator:
    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.by_method: dict[str, list[Operation]] = {}
        for template, item in spec["paths"].items():
            strict, loose = _patterns(template)
            for method, op in item.items():
                if method in METHODS:
                    found = Operation(
                        method.upper(), template, op["operationId"], op, strict, loose
                    )
                    self.by_method.setdefault(found.method, []).append(found)
        # Every named schema converted and indexed once: a registry grown only by lookups
        # forgets them between validations (each lookup returns a new registry) and
        # crawled itself again for each $ref (over a third of the check's CPU).
        named = spec.get("components", {}).get("schemas", {})
        resources = [
            (URN + "components/schemas/" + _escaped(name), _resource(node))
            for name, node in named.items()
        ]
        registry = Registry(retrieve=self._retrieve)  # type: ignore[call-arg]
        self.registry: Registry = registry.with_resources(resources).crawl()
        self._validators: dict[str, Draft202012Validator] = {}
        # (method, path) -> its operation: matching a path tries every template of its
        # method, twice; a test run asks again for the same paths thousands of times
        self._found: dict[tuple[str, str], Operation | None] = {}

    @property
    def operations(self) -> list[Operation]:
        return [op for ops in self.by_method.values() for op in ops]

    def _retrieve(self, uri: str) -> Resource:
        node: Any = self.spec
        for part in uri.removeprefix(URN).split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return _resource(node)

    def operation(self, method: str, path: str) -> Operation | None:
        key = (method, path)
        if key not in self._found:
            if len(self._found) >= 50_000:  # bounded: paths carry shas and numbers
                self._found.clear()
            self._found[key] = self._lookup(method, path)
        return self._found[key]

    def _lookup(self, method: str, path: str) -> Operation | None:
        path = path.split("?", 1)[0]
        if path.startswith(API_PREFIX + "/"):
            path = path[len(API_PREFIX) :]
        found = self._operation(method, path)
        by_id = BY_ID.match(path)
        if found is None and by_id:  # GitHub's id form of /repos/{owner}/{repo}/…
            found = self._operation(method, f"/repos/_/_{by_id.group(1)}")
        return found

    def _operation(self, method: str, path: str) -> Operation | None:
        candidates = self.by_method.get(method, [])
        # "/contents" is the root directory: the template's last parameter is empty.
        concrete = (path, path.rstrip("/") + "/")
        for attempt in ("strict", "loose"):
            found = [o for o in candidates if any(getattr(o, attempt).match(c) for c in concrete)]
            if found:
                return max(found, key=lambda o: o.specificity)
        return None

    def _response(self, op: Operation, status: int) -> dict[str, Any] | None:
        responses = op.spec.get("responses", {})
        response = responses.get(str(status)) or responses.get("default")
        if response is None:
            return None
        if "$ref" in response:
            name = response["$ref"].rsplit("/", 1)[-1]
            response = self.spec["components"]["responses"][name]
        return response  # type: ignore[no-any-return]

    def _validator(self, key: str, schema: dict[str, Any]) -> Draft202012Validator:
        if key not in self._validators:
            self._validators[key] = Draft202012Validator(
                convert(schema),
                registry=self.registry,
                format_checker=Draft202012Validator.FORMAT_CHECKER,
            )
        return self._validators[key]

    def validate_request(self, record: dict[str, Any]) -> list[str]:
        body = record.get("request_body")
        op = self.operation(record["method"], record["path"]) if body is not None else None
        if op is None:
            return []
        where = f"{record['method']} {record['path']} request"
        content = op.spec.get("requestBody", {}).get("content", {})
        entry = content.get("application/json")
        if entry is None:
            return [f"{where}: {op.operation_id} documents no JSON request body"]
        check = self._validator(f"{op.operation_id}:request", entry.get("schema", {}))
        errors = sorted(check.iter_errors(body), key=lambda e: list(e.path))[:25]
        return [f"{where} ({op.operation_id}): {e.json_path}: {e.message[:300]}" for e in errors]

    def validate(self, record: dict[str, Any]) -> list[str]:
        """What is wrong with one recorded response: method, path, status, content_type
        and the parsed body. An empty list means it is what GitHub documents."""
        method, path, status = record["method"], record["path"], record["status"]
        where = f"{method} {path} -> {status}"
        if WEB_PATHS.match(path):
            return []
        op = self.operation(method, path)
        body = record.get("body")
        # An error GitHub does not describe for an operation still has its usual shape.
        usual = self.spec["components"]["responses"]["not_found"]
        if op is None:
            if status == 404:  # no such route: GitHub's plain Not Found
                return self._check(where, "not-found", usual["content"], record)
            return [f"{where}: no operation in GitHub's OpenAPI description"]
        if status == 304:
            return [] if not body else [f"{where}: 304 with a body"]
        location = urlsplit(str(record.get("location") or "")).path.removeprefix(API_PREFIX)
        if status in (301, 302, 307) and BY_ID.match(location):
            # a renamed or transferred repository: GitHub redirects any of its routes to
            # the id form (its "repository redirects"), whether or not the operation says so
            content = {"application/json": {"schema": REDIRECT}}
            return self._check(f"{where} (redirect)", "redirect", content, record)
        response = self._response(op, status)
        if response is None:
            if status < 400:
                return [f"{where}: status not documented for {op.operation_id}"]
            response = usual
        content = response.get("content") or {}
        if not content and body and status >= 400:
            content = usual["content"]  # GitHub's errors carry a body the description omits
        if not content:
            return [f"{where}: {op.operation_id} documents no body"] if body else []
        return self._check(f"{where} ({op.operation_id})", op.operation_id, content, record)

    def _check(
        self, where: str, name: str, content: dict[str, Any], record: dict[str, Any]
    ) -> list[str]:
        status, body = record["status"], record.get("body")
        media = (record.get("content_type") or "").split(";")[0].strip().lower()
        entry = content.get(media)
        if entry is None:
            if media.startswith("application/vnd.github."):
                return []  # a custom media type (raw, diff…) the description leaves out
            return [f"{where}: content type {media!r} not in {sorted(content)}"]
        validator = self._validator(f"{name}:{status}:{media}", entry.get("schema", {}))
        errors = sorted(validator.iter_errors(body), key=lambda e: list(e.path))[:25]
        return [f"{where}: {e.json_path}: {e.message[:300]}" for e in errors]
