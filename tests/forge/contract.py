"""Validates recorded forge responses against GitHub's published OpenAPI description.

The spec comes from the npm package @octokit/openapi (see fetch_openapi.sh). It is large,
so it is parsed once and its schemas are converted lazily: every `$ref` becomes a URI that
a `referencing` registry resolves on first use. OpenAPI 3.0 differs from JSON Schema in
two ways that matter here, and the conversion handles both:

- `nullable: true` becomes a `"null"` type (or an `anyOf` with null).
- `oneOf` becomes `anyOf`: GitHub's alternatives overlap (for instance basic-error and
  repository-rule-violation-error accept the same bodies), so "exactly one" would reject
  responses GitHub itself sends.
"""

from __future__ import annotations

import functools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator
from referencing import Registry, Resource
from referencing.jsonschema import DRAFT202012

OPENAPI_PACKAGE = "@octokit/openapi"
OPENAPI_VERSION = "23.0.2"
REPO_ROOT = Path(__file__).resolve().parents[2]
SPEC_PATH = REPO_ROOT / ".cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json"
URN = "urn:github-openapi:"
API_PREFIX = "/api/v3"
# Paths the forge serves that are not REST operations (github.com's web side).
WEB_PATHS = re.compile(r"^/[^/]+/[^/]+/raw/")

SCHEMA_KEYWORDS = {"items", "additionalProperties", "not", "if", "then", "else"}
SCHEMA_MAPS = {"properties", "patternProperties"}
SCHEMA_LISTS = {"allOf", "anyOf", "oneOf", "prefixItems"}
DROPPED = {"nullable", "discriminator", "example", "examples", "xml", "externalDocs"}


class SpecMissing(RuntimeError):
    pass


@functools.cache
def load_spec(path: Path = SPEC_PATH) -> dict[str, Any]:
    if not path.is_file():
        raise SpecMissing(
            f"GitHub's OpenAPI description is missing at {path}. "
            f"Run tests/forge/fetch_openapi.sh (installs {OPENAPI_PACKAGE}@{OPENAPI_VERSION})."
        )
    return json.loads(path.read_text())


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
    if node.get("nullable") is True:
        if isinstance(out.get("type"), str):
            out["type"] = [out["type"], "null"]
            if "enum" in out:
                out["enum"] = [*out["enum"], None]
        else:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@dataclass(frozen=True)
class Operation:
    method: str
    template: str
    operation_id: str
    spec: dict[str, Any]
    strict: re.Pattern[str]
    loose: re.Pattern[str]

    @property
    def specificity(self) -> tuple[int, int]:
        parts = self.template.strip("/").split("/")
        literal = sum(1 for p in parts if not p.startswith("{"))
        return literal, -len(parts)


def _patterns(template: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    pieces = re.split(r"(\{[^}]+\})", template)
    params = [i for i, p in enumerate(pieces) if p.startswith("{")]
    strict, loose = "", ""
    for i, piece in enumerate(pieces):
        if piece.startswith("{"):
            strict += "[^/]+"
            # The last parameter may hold slashes: refs, branch names, file paths.
            loose += ".*" if i == params[-1] else "[^/]+"
        else:
            strict += re.escape(piece)
            loose += re.escape(piece)
    return re.compile(f"^{strict}$"), re.compile(f"^{loose}$")


class ContractValidator:
    def __init__(self, spec: dict[str, Any]):
        self.spec = spec
        self.operations: list[Operation] = []
        for template, item in spec["paths"].items():
            strict, loose = _patterns(template)
            for method, op in item.items():
                if method in ("get", "post", "put", "patch", "delete", "head"):
                    self.operations.append(
                        Operation(method.upper(), template, op["operationId"], op, strict, loose)
                    )
        self.registry: Registry = Registry(retrieve=self._retrieve)  # type: ignore[call-arg]
        self._validators: dict[str, Draft202012Validator] = {}

    def _retrieve(self, uri: str) -> Resource:
        node: Any = self.spec
        for part in uri.removeprefix(URN).split("/"):
            node = node[part.replace("~1", "/").replace("~0", "~")]
        return Resource.from_contents(convert(node), default_specification=DRAFT202012)

    def operation(self, method: str, path: str) -> Operation | None:
        path = path.split("?", 1)[0]
        if path.startswith(API_PREFIX + "/"):
            path = path[len(API_PREFIX) :]
        candidates = [o for o in self.operations if o.method == method]
        for attempt in ("strict", "loose"):
            # "/contents" is the root directory: the template's last parameter is empty.
            concrete = (path, path.rstrip("/") + "/")
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
        return response

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
        method, path, status = record["method"], record["path"], record["status"]
        where = f"{method} {path} -> {status}"
        if WEB_PATHS.match(path):
            return []
        op = self.operation(method, path)
        if op is None:
            return [f"{where}: no operation in GitHub's OpenAPI description"]
        if status == 304:
            return [] if not record.get("body") else [f"{where}: 304 with a body"]
        response = self._response(op, status)
        if response is None:
            if status < 400:
                return [f"{where}: status not documented for {op.operation_id}"]
            # An error GitHub does not list for this operation still has its usual shape.
            response = self.spec["components"]["responses"]["not_found"]
        content = response.get("content") or {}
        body = record.get("body")
        if not content:
            return [f"{where}: {op.operation_id} documents no body"] if body else []
        media = (record.get("content_type") or "").split(";")[0].strip().lower()
        entry = content.get(media)
        if entry is None:
            if media.startswith("application/vnd.github."):
                return []  # a custom media type (raw, diff…) the description leaves out
            return [f"{where}: content type {media!r} not in {sorted(content)}"]
        key = f"{op.operation_id}:{status}:{media}"
        validator = self._validator(key, entry.get("schema", {}))
        problems = []
        for error in sorted(validator.iter_errors(body), key=lambda e: list(e.path))[:25]:
            problems.append(
                f"{where} ({op.operation_id}): {error.json_path}: {error.message[:300]}"
            )
        return problems


def validate_request_bodies(records: list[dict[str, Any]]) -> list[str]:
    """Each recorded JSON request body against its operation's documented requestBody
    (records without a body, or of operations without one, pass)."""
    check = validator()
    problems: list[str] = []
    for record in records:
        problems += check.validate_request(record)
    return problems


@functools.cache
def validator() -> ContractValidator:
    return ContractValidator(load_spec())


def validate_records(records: list[dict[str, Any]]) -> list[str]:
    """Every problem found in recorded responses; an empty list means all conform."""
    check = validator()
    problems: list[str] = []
    for record in records:
        problems += check.validate(record)
    return problems


def operations_covered(records: list[dict[str, Any]]) -> dict[str, set[int]]:
    """operationId -> statuses seen, to show which operations a run exercised."""
    check = validator()
    covered: dict[str, set[int]] = {}
    for record in records:
        op = check.operation(record["method"], record["path"])
        if op is not None:
            covered.setdefault(op.operation_id, set()).add(record["status"])
    return covered
