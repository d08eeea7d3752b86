"""The documentation points at things that exist: every relative link of docs/*.md,
README.md and CONTRIBUTING.md reaches a file (and its #anchor a heading there), and every
source path the docs name in backticks (`github_mcp/...`, `tests/...`, `bench/...`,
`sandbox_forge/...`, or a module of a github_mcp package such as `pipeline/seam.py`) is
in the checkout. A module moved or a heading renamed fails here until the docs follow."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\s]+)`")
FENCE = re.compile(r"^ *```.*?^ *```", re.M | re.S)
ROOTS = ("github_mcp/", "tests/", "bench/", "sandbox_forge/", "deploy/", "docs/")
PACKAGES = {p.name for p in (ROOT / "github_mcp").iterdir() if (p / "__init__.py").exists()}
PLACEHOLDER = re.compile(r"[<>*{}]|\.\.\.|…")


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, markup and punctuation dropped,
    spaces as hyphens."""
    text = re.sub(r"`|\*\*|\[([^\]]*)\]\([^)]*\)", r"\1", heading).strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(doc: Path) -> set[str]:
    text = FENCE.sub("", doc.read_text())
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *$", text, re.M):
        slug, n = _slug(heading), 0
        while (candidate := slug if n == 0 else f"{slug}-{n}") in found:
            n += 1
        found.add(candidate)
    return found


def _links(doc: Path) -> list[str]:
    text = FENCE.sub("", doc.read_text())
    return [
        target
        for target in LINK.findall(text)
        if not re.match(r"[a-z][a-z0-9+.-]*:", target)  # http:, mailto:, ui: …
    ]


def _named_paths(doc: Path) -> list[str]:
    named = []
    for token in CODE.findall(doc.read_text()):
        path = token.split("#")[0].split("::")[0].rstrip(".,:;")
        if PLACEHOLDER.search(path) or "/" not in path:
            continue
        first = path.split("/", 1)[0]
        if path.startswith(ROOTS):
            named.append(path)
        elif first in PACKAGES and re.search(r"\.(py|json|toml)$|/$", path):
            named.append("github_mcp/" + path)
    return named


def test_the_checks_see_the_documents():
    names = {d.name for d in DOCS}
    assert {"ARCHITECTURE.md", "SAFETY.md", "OPERATIONS.md", "README.md"} <= names
    assert all(d.exists() for d in DOCS)
    assert _slug("## 5. Workspace `security` model".lstrip("# ")) == "5-workspace-security-model"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_relative_link_reaches_a_file_and_heading(doc: Path):
    broken = []
    for target in _links(doc):
        file_part, _, anchor = target.partition("#")
        dest = (doc.parent / file_part).resolve() if file_part else doc
        if not dest.exists():
            broken.append(target)
        elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
            broken.append(target)
    assert not broken, f"{doc.name}: links to nothing: {broken}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_every_source_path_named_exists(doc: Path):
    missing = sorted({p for p in _named_paths(doc) if not (ROOT / p).exists()})
    assert not missing, f"{doc.name} names paths that are not in the checkout: {missing}"


def test_no_document_points_at_the_old_architecture_and_safety_file():
    stale = "ARCHITECTURE_AND_SAFETY"
    assert not (ROOT / "docs" / f"{stale}.md").exists()
    sources = [*DOCS, ROOT / "pyproject.toml", *(ROOT / "github_mcp").rglob("*.py")]
    assert not [str(p.relative_to(ROOT)) for p in sources if stale in p.read_text()]


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.name)
def test_no_section_is_there_twice(doc: Path):
    """A section pasted twice (a merge kept both sides) leaves two versions to drift."""
    sections = re.findall(r"^## +(.+?) *$", FENCE.sub("", doc.read_text()), re.M)
    assert len(sections) == len(set(sections)), f"{doc.name}: {sorted(sections)}"
