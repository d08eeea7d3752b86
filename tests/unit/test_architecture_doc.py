"""The layer picture in docs/ARCHITECTURE.md ("Layers") is the layer contract that
`lint-imports` enforces, and names every package of github_mcp."""

from __future__ import annotations

import itertools
import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _contract_layers() -> list[set[str]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contract = next(
        c
        for c in config["tool"]["importlinter"]["contracts"]
        if c["name"].startswith("Each package imports only the packages below it")
    )
    return [
        {part.strip().removeprefix("github_mcp.") for part in layer.split("|")}
        for layer in contract["layers"]
    ]


def _diagram() -> tuple[list[str], list[tuple[str, str]]]:
    doc = (ROOT / "docs" / "ARCHITECTURE.md").read_text()
    layers = doc.split("\n## Layers\n", 1)
    assert len(layers) == 2, "the Layers section is missing"
    block = re.search(r"```mermaid\n(.*?)```", layers[1], re.S)
    assert block, "the layer diagram is missing"
    nodes = re.findall(r"^\s+(\w+)\[", block.group(1), re.M)
    edges: list[tuple[str, str]] = []
    for line in block.group(1).splitlines():
        chain = [n.strip() for n in line.split("-->")]
        edges += list(itertools.pairwise(chain))
    return nodes, edges


def _packages() -> set[str]:
    pkg = ROOT / "github_mcp"
    return {p.name for p in pkg.iterdir() if (p / "__init__.py").exists()}


def test_the_diagram_names_every_package_and_nothing_else():
    nodes, _ = _diagram()
    assert set(nodes) == _packages()


def test_every_package_is_in_a_layer_of_the_contract():
    layered = set().union(*_contract_layers())
    assert layered == _packages()


def test_the_diagram_arrows_follow_the_contract_order():
    rank = {name: i for i, layer in enumerate(_contract_layers()) for name in layer}
    _, edges = _diagram()
    assert edges
    for upper, lower in edges:
        assert rank[upper] < rank[lower], (upper, lower)
    # every layer is reached from the one above it, so the picture shows the whole order
    reached = {lower for _, lower in edges}
    top = {name for name, r in rank.items() if r == 0}
    assert reached | top == set(rank)


def test_the_top_level_holds_packages_only():
    loose = sorted(
        p.name
        for p in (ROOT / "github_mcp").iterdir()
        if p.suffix == ".py" and p.name not in ("__init__.py", "__main__.py")
    )
    assert loose == []
