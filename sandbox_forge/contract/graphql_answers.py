"""A GraphQL answer held against GitHub's GraphQL schema (the npm package
@octokit/graphql-schema, `schema.graphql`).

The query is validated against GitHub's schema first: a document GitHub rejects must be
answered with errors and no data, and one GitHub accepts must not be refused. Then the
answer's `data` is walked along the operation's selections, typed by GitHub's schema:
every selected field present, null only where GitHub's type allows it, lists, enum
values, objects, and GitHub's scalars in their documented encodings. Each error carries a
message, and where given, locations, a path and a type.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from graphql import (
    DocumentNode,
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    GraphQLAbstractType,
    GraphQLEnumType,
    GraphQLError,
    GraphQLList,
    GraphQLNamedType,
    GraphQLNonNull,
    GraphQLObjectType,
    GraphQLOutputType,
    GraphQLScalarType,
    GraphQLSchema,
    InlineFragmentNode,
    SelectionSetNode,
    build_schema,
    get_operation_ast,
    parse,
    validate,
)
from graphql.execution.values import get_variable_values

ISO_DATE_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:?\d{2})$")
SCALARS: dict[str, Callable[[Any], bool]] = {
    "String": lambda v: isinstance(v, str),
    "ID": lambda v: isinstance(v, str),
    "Boolean": lambda v: isinstance(v, bool),
    "Int": lambda v: isinstance(v, int) and not isinstance(v, bool) and -(2**31) <= v < 2**31,
    "Float": lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    "DateTime": lambda v: isinstance(v, str) and bool(ISO_DATE_TIME.match(v)),
    "PreciseDateTime": lambda v: isinstance(v, str) and bool(ISO_DATE_TIME.match(v)),
    "GitTimestamp": lambda v: isinstance(v, str) and bool(ISO_DATE_TIME.match(v)),
    "Date": lambda v: isinstance(v, str) and bool(re.fullmatch(r"\d{4}-\d{2}-\d{2}", v)),
    "GitObjectID": lambda v: isinstance(v, str) and bool(re.fullmatch(r"[0-9a-f]{40}", v)),
    "URI": lambda v: isinstance(v, str) and bool(re.match(r"^[A-Za-z][A-Za-z0-9+.-]*:", v)),
    "BigInt": lambda v: isinstance(v, str) and bool(re.fullmatch(r"-?\d+", v)),
}
ERROR_KEYS = {"message", "locations", "path", "type", "extensions"}


def load_schema(text: str) -> GraphQLSchema:
    schema = build_schema(text, assume_valid_sdl=True)
    # graphql-core rejects a few of GitHub's deprecations (deprecated implementations of
    # undeprecated interface fields); they do not matter for checking answers.
    schema._validation_errors = []  # type: ignore[attr-defined]
    return schema


def _plain(node: Any) -> str:
    return str(node.name.value) if node is not None and node.name is not None else ""


def _answered(answer: dict[str, Any], refusal: str) -> list[str]:
    """GitHub refuses such a request: data in the answer, or no errors, is a finding."""
    if answer.get("data") is not None or not answer.get("errors"):
        return [f"{refusal}; answered"]
    return []


def _without_data(answer: dict[str, Any]) -> list[str]:
    """An answer with no data (absent or null): what GitHub would have said instead."""
    errors = answer.get("errors")
    if not errors:
        return ["no data and no errors" if "data" not in answer else "data is null without errors"]
    if "data" not in answer and all("path" not in e for e in errors if isinstance(e, dict)):
        first = errors[0].get("message", "") if isinstance(errors[0], dict) else ""
        return [f"GitHub's schema accepts this document; refused: {first}"]
    return []


class AnswerChecker:
    """Checks one GraphQL exchange; `reached` collects the Type.field pairs answered."""

    def __init__(self, schema: GraphQLSchema):
        self.schema = schema
        self.reached: set[str] = set()

    def check(self, payload: dict[str, Any], answer: Any) -> list[str]:
        if not isinstance(answer, dict):
            return ["the answer is not a JSON object"]
        problems = self._errors_shape(answer.get("errors"))
        document, refused = self._github_document(payload.get("query"))
        if refused is not None:
            return problems + _answered(
                answer, f"GitHub's schema rejects this document ({refused})"
            )
        assert document is not None
        operation = get_operation_ast(document, payload.get("operationName"))
        if operation is None:
            return problems
        variables = payload.get("variables") or {}
        coerced = (
            get_variable_values(self.schema, operation.variable_definitions or (), variables)
            if isinstance(variables, dict)
            else [GraphQLError("Variables are invalid JSON.")]
        )
        if isinstance(coerced, list):  # GitHub refuses variables its schema does not take
            return problems + _answered(
                answer, f"GitHub refuses these variables ({coerced[0].message})"
            )
        if answer.get("data") is None:
            return problems + _without_data(answer)
        root = self.schema.get_root_type(operation.operation)
        data = answer["data"]
        fragments = {
            d.name.value: d for d in document.definitions if isinstance(d, FragmentDefinitionNode)
        }
        walk = _Walk(self, fragments, problems)
        assert root is not None
        walk.selections(root, operation.selection_set, data, operation.operation.value)
        return problems

    def _github_document(self, query: Any) -> tuple[DocumentNode | None, str | None]:
        if not isinstance(query, str) or not query.strip():
            return None, "no query"
        try:
            document = parse(query)
        except GraphQLError as error:
            return None, error.message
        errors = validate(self.schema, document)
        if errors:
            return None, errors[0].message
        return document, None

    @staticmethod
    def _errors_shape(errors: Any) -> list[str]:
        if errors is None:
            return []
        if not isinstance(errors, list) or not errors:
            return ["errors is not a non-empty list"]
        problems = []
        for n, error in enumerate(errors):
            where = f"errors[{n}]"
            if not isinstance(error, dict) or not isinstance(error.get("message"), str):
                problems.append(f"{where}: no message")
                continue
            if set(error) - ERROR_KEYS:
                problems.append(f"{where}: unexpected keys {sorted(set(error) - ERROR_KEYS)}")
            path = error.get("path")
            if path is not None and not all(isinstance(p, str | int) for p in path):
                problems.append(f"{where}.path: not a list of names and indexes")
            for loc in error.get("locations") or []:
                if not (isinstance(loc, dict) and {"line", "column"} <= set(loc)):
                    problems.append(f"{where}.locations: not line and column")
        return problems


class _Walk:
    def __init__(
        self,
        checker: AnswerChecker,
        fragments: dict[str, FragmentDefinitionNode],
        problems: list[str],
    ):
        self.checker = checker
        self.schema = checker.schema
        self.fragments = fragments
        self.problems = problems

    def selections(
        self, parent: GraphQLNamedType, selection_set: SelectionSetNode, value: Any, path: str
    ) -> None:
        if not isinstance(value, dict):
            self.problems.append(f"{path}: {type(value).__name__} where {parent.name} is due")
            return
        concrete = self._concrete(parent, value)
        for node, owner, certain in self._fields(parent, concrete, selection_set, value):
            key = node.alias.value if node.alias else node.name.value
            where = f"{path}.{key}"
            if key not in value:
                if certain and not node.directives:
                    self.problems.append(f"{where}: selected but missing")
                continue
            if node.name.value == "__typename":
                if not isinstance(value[key], str) or value[key] not in self.schema.type_map:
                    self.problems.append(f"{where}: {value[key]!r} is not a type of GitHub's")
                continue
            fields = getattr(owner, "fields", {})
            field = fields.get(node.name.value)
            if field is None:
                self.problems.append(f"{where}: {owner.name} has no field {node.name.value}")
                continue
            self.checker.reached.add(f"{owner.name}.{node.name.value}")
            self.value(field.type, node, value[key], where)

    def value(self, kind: GraphQLOutputType, node: FieldNode, value: Any, where: str) -> None:
        if isinstance(kind, GraphQLNonNull):
            if value is None:
                self.problems.append(f"{where}: null, but GitHub's type is {kind}")
                return
            kind = kind.of_type
        if value is None:
            return
        if isinstance(kind, GraphQLList):
            if not isinstance(value, list):
                self.problems.append(f"{where}: not a list ({kind})")
                return
            for i, item in enumerate(value):
                self.value(kind.of_type, node, item, f"{where}[{i}]")
            return
        self.leaf_or_object(kind, node, value, where)

    def leaf_or_object(self, kind: Any, node: FieldNode, value: Any, where: str) -> None:
        """A scalar, an enum value, or an object whose selections are walked in turn."""
        if isinstance(kind, GraphQLScalarType):
            ok = SCALARS.get(kind.name, lambda v: isinstance(v, str))(value)
            if not ok:
                self.problems.append(f"{where}: {value!r} is not a {kind.name}")
        elif isinstance(kind, GraphQLEnumType):
            if value not in kind.values:
                self.problems.append(f"{where}: {value!r} is not a value of {kind.name}")
        elif node.selection_set is not None:
            self.selections(kind, node.selection_set, value, where)

    def _concrete(self, parent: GraphQLNamedType, value: dict[str, Any]) -> GraphQLNamedType:
        """The object type the value is, when it says (__typename) or the parent is one."""
        if isinstance(parent, GraphQLObjectType):
            return parent
        typename = next((v for k, v in value.items() if k == "__typename"), None)
        found = self.schema.type_map.get(typename) if isinstance(typename, str) else None
        if isinstance(parent, GraphQLAbstractType) and isinstance(found, GraphQLObjectType):
            if self.schema.is_sub_type(parent, found):
                return found
            self.problems.append(f"{typename} is not a possible type of {parent.name}")
        return parent

    def _applies(self, condition: str | None, concrete: GraphQLNamedType) -> bool | None:
        """Whether a fragment on `condition` applies: True, False, or None (unknown)."""
        if condition is None or condition == concrete.name:
            return True
        target = self.schema.type_map.get(condition)
        if isinstance(concrete, GraphQLObjectType) and isinstance(target, GraphQLAbstractType):
            return self.schema.is_sub_type(target, concrete)
        if isinstance(concrete, GraphQLObjectType):
            return False
        return None

    def _fields(
        self,
        parent: GraphQLNamedType,
        concrete: GraphQLNamedType,
        selection_set: SelectionSetNode,
        value: dict[str, Any],
        certain: bool = True,
    ) -> list[tuple[FieldNode, GraphQLNamedType, bool]]:
        out: list[tuple[FieldNode, GraphQLNamedType, bool]] = []
        for selection in selection_set.selections:
            if isinstance(selection, FieldNode):
                owner = concrete if hasattr(concrete, "fields") else parent
                out.append((selection, owner, certain))
                continue
            if isinstance(selection, InlineFragmentNode):
                condition = _plain(selection.type_condition) or None
                inner = selection.selection_set
                sure = certain and not selection.directives
            elif isinstance(selection, FragmentSpreadNode):
                fragment = self.fragments.get(selection.name.value)
                if fragment is None:
                    continue
                condition, inner = _plain(fragment.type_condition), fragment.selection_set
                sure = certain and not selection.directives
            else:
                continue
            applies = self._applies(condition, concrete)
            if applies is False:
                continue
            target = self.schema.type_map.get(condition or "") or concrete
            own = concrete if applies and isinstance(concrete, GraphQLObjectType) else target
            out += self._fields(target, own, inner, value, sure and applies is True)
        return out
