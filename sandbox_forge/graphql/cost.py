"""What a GraphQL query costs, counted the way GitHub documents it: every connection
(a field taking `first` or `last`) is one request per parent it can appear under,
assuming each page is full; the cost is that total over 100, rounded, and at least 1.
`nodeCount` is the number of nodes the connections can return."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from graphql import (
    FieldNode,
    FragmentDefinitionNode,
    FragmentSpreadNode,
    InlineFragmentNode,
    IntValueNode,
    OperationDefinitionNode,
    SelectionSetNode,
    VariableNode,
)


@dataclass
class QueryCost:
    cost: int
    node_count: int


def _page_size(field: FieldNode, variables: dict[str, Any]) -> int | None:
    for argument in field.arguments or ():
        if argument.name.value not in ("first", "last"):
            continue
        value = argument.value
        if isinstance(value, IntValueNode):
            return int(value.value)
        if isinstance(value, VariableNode):
            got = variables.get(value.name.value)
            return int(got) if isinstance(got, int) else None
    return None


def query_cost(
    operation: OperationDefinitionNode,
    fragments: dict[str, FragmentDefinitionNode],
    variables: dict[str, Any],
) -> QueryCost:
    requests = nodes = 0

    def walk(selections: SelectionSetNode | None, multiplier: int, seen: frozenset[str]) -> None:
        nonlocal requests, nodes
        for selection in selections.selections if selections else ():
            if isinstance(selection, FieldNode):
                size = _page_size(selection, variables)
                if size is None:
                    walk(selection.selection_set, multiplier, seen)
                    continue
                requests += multiplier
                nodes += multiplier * size
                walk(selection.selection_set, multiplier * max(size, 1), seen)
            elif isinstance(selection, InlineFragmentNode):
                walk(selection.selection_set, multiplier, seen)
            elif isinstance(selection, FragmentSpreadNode):
                name = selection.name.value
                if name in fragments and name not in seen:
                    walk(fragments[name].selection_set, multiplier, seen | {name})

    walk(operation.selection_set, 1, frozenset())
    return QueryCost(cost=max(1, round(requests / 100)), node_count=nodes)
