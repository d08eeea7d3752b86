"""`make new-tool NAME=… DOMAIN=… TOOLSET=… [ROUTE=…]`: the skeleton of a new read tool.

Writes the tool into its domain's home and its service beside it (CONTRIBUTING.md, "Adding
a read tool"): a new domain gets `github_mcp/tools/<domain>.py` and
`github_mcp/services/<domain>.py`; an existing one gets the tool appended to its module
(`tools/<domain>.py`), or a new module in its package (`tools/<domain>/<name>.py`), and
the same for its service. Then the forge's route (`sandbox_forge/rest/routes/<domain>.py`,
or `<name>.py` when that is taken, added to `sandbox_forge/app.py`'s FEATURES) and a test
(`tests/test_tools_<domain>.py`, or `test_tools_<name>.py`). `make docs` and `make
snapshots` then refresh the generated files (the tool index, TOOLS.md, the snapshot).
Each skeleton passes `make lint` as written; the tool lists what the forge's route answers
(an empty list until the forge keeps records for it). A source checkout only.
"""

from __future__ import annotations

import argparse
import ast
import keyword
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{2,60}$")
ROUTE_RE = re.compile(r"^/repos/\{owner\}/\{repo\}(/[a-z0-9_-]+)+$")

TOOL_DOC = '"""{title}: {summary}"""\n\nfrom __future__ import annotations\n\n'
TOOL_IMPORTS = """from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services{parent} import {leaf} as {alias}
"""
TOOL = '''

@tool(toolset="{toolset}")
async def {name}(
    call: Call, full_name: FullName, limit: Limit = 30, cursor: Cursor | None = None
) -> {alias}.{model}Page:
    """{summary}"""
    return await {alias}.{name}(call.rt.github, full_name, limit=limit, cursor=cursor)
'''

SERVICE_DOC = (
    '"""{title} over GitHub\'s REST API, as compact typed records:\nGET {route}\n"""\n\n'
    "from __future__ import annotations\n\n"
)
SERVICE_IMPORTS = """from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.services.shared.repo_facts import repo_path
"""
SERVICE = """

class {model}(BaseModel):
    id: int


class {model}Page(BaseModel):
    items: list[{model}]
    next_cursor: str | None = None


def _{model_snake}(item: dict[str, Any]) -> {model}:
    return {model}(id=item["id"])


async def {name}(
    github: GitHubClient, full_name: str, *, limit: int, cursor: str | None
) -> {model}Page:
    path = f"{{repo_path(full_name)}}{suffix}"
    page = await github.paginate(path, limit=limit, cursor=cursor, repo=full_name)
    return {model}Page(
        items=[_{model_snake}(item) for item in page.items], next_cursor=page.next_cursor
    )
"""

ROUTE = '''"""{title} by GitHub's REST description; the forge keeps no records for them yet:
GET {route}
"""

from __future__ import annotations

from starlette.responses import Response
from starlette.routing import Route

from sandbox_forge.rest.api import Ctx, endpoint
from sandbox_forge.stores.state import ForgeState


@endpoint
def {name}(ctx: Ctx) -> Response:
    ctx.repo()  # 404 for a repository the caller cannot read
    return ctx.paginate([])


def routes(state: ForgeState) -> list[Route]:
    return [Route("{route}", {name}, methods=["GET"])]
'''

TEST = '''"""{name} through a real MCP client against the forge."""

from __future__ import annotations

from tests.conftest import DEMO_REPO, call_tool, error_code, mcp_client


async def test_{name}_lists_what_the_forge_holds(make_runtime, forge):
    rt = make_runtime(toolsets="{toolset}")
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(client, "{name}", {{"full_name": DEMO_REPO}})
    assert not is_error, result
    assert result == {{"items": []}}  # seed records in the forge and check them here


async def test_{name}_of_a_repository_that_does_not_exist(make_runtime, forge):
    rt = make_runtime(toolsets="{toolset}")
    async with mcp_client(rt) as client:
        is_error, result = await call_tool(client, "{name}", {{"full_name": "octo-org/nope"}})
    assert is_error and error_code(result) == "not_found", result
'''


def _check(name: str, domain: str, toolset: str, route: str) -> None:
    from github_mcp.config import Toolset

    known = sorted(t.value for t in Toolset)
    if toolset not in known:
        raise SystemExit(f"TOOLSET={toolset!r}: one of {', '.join(known)}")
    for what, value in (("NAME", name), ("DOMAIN", domain)):
        if not NAME_RE.match(value) or keyword.iskeyword(value):
            raise SystemExit(f"{what}={value!r}: lower case letters, digits and _, 3-61 long")
    if not ROUTE_RE.match(route):
        raise SystemExit(f"ROUTE={route!r}: a path under /repos/{{owner}}/{{repo}}/")


def _noun(name: str) -> str:
    """list_deployments: deployments."""
    return name.split("_", 1)[1] if "_" in name else name


def _values(name: str, domain: str, toolset: str, route: str) -> dict[str, str]:
    noun = _noun(name)
    words = noun.replace("_", " ")
    return {
        "name": name, "toolset": toolset, "route": route, "alias": f"{domain}_service",
        "model": "".join(part.title() for part in noun.split("_")).rstrip("s") or "Item",
        "model_snake": noun.rstrip("s") or "item", "title": words.capitalize(),
        "summary": f"A repository's {words}, newest first.",
        "suffix": route.removeprefix("/repos/{owner}/{repo}"),
    }  # fmt: skip


def _home(root: Path, package: str, domain: str, name: str) -> tuple[Path, str, str]:
    """Where the domain's new code goes in `package` (tools or services): a new module in
    the domain's package, else the domain's module (new or extended); with the import of
    it (`from github_mcp.<package><parent> import <leaf>`)."""
    base = root / "github_mcp" / package
    if (base / domain).is_dir():
        return base / domain / f"{name}.py", f".{domain}", name
    return base / f"{domain}.py", "", domain


def _own_file(directory: Path, stem: str, other: str) -> Path:
    """`<stem>.py` in `directory`, or `<other>.py` when that is taken."""
    first = directory / f"{stem}.py"
    return directory / f"{other}.py" if first.exists() else first


def _extended(path: Path, doc: str, imports: str, body: str) -> str:
    """The module at `path` with `imports` after its last import and `body` at its end,
    or a new module of the three."""
    if not path.exists():
        return doc + imports + body
    text = path.read_text()
    tree = ast.parse(text)
    last = max(n.end_lineno or 0 for n in tree.body if isinstance(n, ast.Import | ast.ImportFrom))
    lines = text.splitlines(keepends=True)
    return "".join(lines[:last]) + imports + "".join(lines[last:]).rstrip("\n") + "\n" + body


def files_of(root: Path, name: str, domain: str, toolset: str, route: str) -> dict[Path, str]:
    """The files the scaffold writes or extends (the tool's, the service's, the route's,
    the test's), and their new text."""
    values = _values(name, domain, toolset, route)
    tool_path, _, _ = _home(root, "tools", domain, name)
    service_path, parent, leaf = _home(root, "services", domain, name)
    values.update(parent=parent, leaf=leaf)
    routes, tests = root / "sandbox_forge" / "rest" / "routes", root / "tests"
    return {
        tool_path: _extended(
            tool_path, TOOL_DOC.format(**values), TOOL_IMPORTS.format(**values),
            TOOL.format(**values),
        ),
        service_path: _extended(
            service_path, SERVICE_DOC.format(**values), SERVICE_IMPORTS,
            SERVICE.format(**values),
        ),
        _own_file(routes, domain, name): ROUTE.format(**values),
        _own_file(tests, f"test_tools_{domain}", f"test_tools_{name}"): TEST.format(**values),
    }  # fmt: skip


def _taken(root: Path, name: str, files: dict[Path, str]) -> list[str]:
    """What the new tool would clash with: a tool of its name, names it adds to a module it
    extends, a route or test file already there."""
    tools = (root / "github_mcp" / "tools").rglob("*.py")
    found = [str(path) for path in tools if f"async def {name}(" in path.read_text()]
    tool_path, service_path, route_path, test_path = files
    model = _values(name, "", "", "")["model"]
    clash = re.compile(rf"^(class {model}(Page)?\b|(async )?def {name}\()", re.M)
    if service_path.exists() and clash.search(service_path.read_text()):
        found.append(str(service_path))
    return found + [str(path) for path in (route_path, test_path) if path.exists()]


def add_to_app(text: str, module: str) -> str:
    """sandbox_forge/app.py with the new route module imported and last in FEATURES (the
    import goes after the last one; `ruff check --fix` sorts it into place)."""
    alias = f"routes_{module}"
    anchor = "FEATURES: list[ModuleType] = ["
    if anchor not in text:
        raise SystemExit("sandbox_forge/app.py has no FEATURES list: add the routes by hand")
    lines = text[: text.index(anchor)].splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.startswith(("from ", "import ")))
    while not lines[last].rstrip().endswith(")") and "(" in lines[last]:
        last += 1  # the end of a parenthesised import
    head = "".join(lines[: last + 1])
    head += f"from sandbox_forge.rest.routes import {module} as {alias}\n"
    rest = text[len("".join(lines[: last + 1])) :]
    end = rest.index("\n]\n", rest.index(anchor))
    return head + rest[:end] + f"\n    {alias}," + rest[end:]


def scaffold(root: Path, name: str, domain: str, toolset: str, route: str) -> list[Path]:
    _check(name, domain, toolset, route)
    files = files_of(root, name, domain, toolset, route)
    taken = _taken(root, name, files)
    if taken:
        raise SystemExit(f"already there: {', '.join(taken)}; add by hand")
    for path, text in files.items():
        path.write_text(text)
    app = root / "sandbox_forge/app.py"
    app.write_text(add_to_app(app.read_text(), list(files)[2].stem))
    written = [*files, app]
    # the repository's own formatter puts imports and lines where `make lint` wants them
    ruff = [sys.executable, "-m", "ruff"]
    paths = [str(path) for path in written]
    subprocess.run([*ruff, "check", "--fix", "--select", "I", "-q", *paths], cwd=root, check=True)
    subprocess.run([*ruff, "format", "-q", *paths], cwd=root, check=True)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="make new-tool", description=__doc__)
    parser.add_argument("--name", required=True, help="the tool's name, e.g. list_deployments")
    parser.add_argument("--domain", required=True, help="its domain, e.g. repos or deployments")
    parser.add_argument("--toolset", required=True, help="an existing toolset, e.g. repos")
    parser.add_argument(
        "--route", help="GitHub's REST path (default: /repos/{owner}/{repo}/<name's noun>)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    route = args.route or "/repos/{owner}/{repo}/" + _noun(args.name).replace("_", "-")
    written = scaffold(args.root, args.name, args.domain, args.toolset, route)
    for path in written:
        print(path.relative_to(args.root))
    print("next: make docs (the tool index, TOOLS.md) and make snapshots; then make lint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
