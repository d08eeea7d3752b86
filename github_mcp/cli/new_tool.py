"""`make new-tool NAME=… DOMAIN=… TOOLSET=… [ROUTE=…]`: the skeleton of a new read tool.

Writes four new files and one line pair in the forge's app (CONTRIBUTING.md, "Adding a
tool"): the tool (`github_mcp/tools/<domain>.py`), its service
(`github_mcp/services/<domain>.py`), the forge's route (`sandbox_forge/rest/routes/<domain>.py`,
added to `sandbox_forge/app.py`'s FEATURES) and a test (`tests/test_tools_<domain>.py`).
`make docs` then refreshes the generated files (the tool index, TOOLS.md, the snapshot).
Each skeleton passes `make lint` as written; the tool lists what the forge's route answers
(an empty list until the forge keeps records for it). A source checkout only.
"""

from __future__ import annotations

import argparse
import keyword
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
NAME_RE = re.compile(r"^[a-z][a-z0-9_]{2,60}$")
ROUTE_RE = re.compile(r"^/repos/\{owner\}/\{repo\}(/[a-z0-9_-]+)+$")

TOOL = '''"""{title}: {summary}"""

from __future__ import annotations

from github_mcp.kernel.params import Cursor, FullName, Limit
from github_mcp.pipeline.registry import Call, tool
from github_mcp.services import {domain} as service

TOOLSET = "{toolset}"


@tool(toolset=TOOLSET)
async def {name}(
    call: Call, full_name: FullName, limit: Limit = 30, cursor: Cursor | None = None
) -> service.{model}Page:
    """{summary}"""
    return await service.{name}(call.rt.github, full_name, limit=limit, cursor=cursor)
'''

SERVICE = '''"""{title} over GitHub's REST API, as compact typed records:
GET {route}
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from github_mcp.github.client import GitHubClient
from github_mcp.services.shared.repo_facts import repo_path


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
'''

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


def files_of(root: Path, name: str, domain: str, toolset: str, route: str) -> dict[Path, str]:
    """The new files and their text."""
    words = domain.replace("_", " ")
    model = "".join(part.title() for part in domain.split("_")).rstrip("s") or "Item"
    values = {
        "name": name, "domain": domain, "toolset": toolset, "route": route, "model": model,
        "model_snake": domain.rstrip("s"), "title": words.capitalize(),
        "summary": f"A repository's {words}, newest first.",
        "suffix": route.removeprefix("/repos/{owner}/{repo}"),
    }  # fmt: skip
    return {
        root / f"github_mcp/tools/{domain}.py": TOOL.format(**values),
        root / f"github_mcp/services/{domain}.py": SERVICE.format(**values),
        root / f"sandbox_forge/rest/routes/{domain}.py": ROUTE.format(**values),
        root / f"tests/test_tools_{domain}.py": TEST.format(**values),
    }


def add_to_app(text: str, domain: str) -> str:
    """sandbox_forge/app.py with the new route module imported and last in FEATURES (the
    import goes after the last one; `ruff check --fix` sorts it into place)."""
    alias = f"routes_{domain}"
    anchor = "FEATURES: list[ModuleType] = ["
    if anchor not in text:
        raise SystemExit("sandbox_forge/app.py has no FEATURES list: add the routes by hand")
    lines = text[: text.index(anchor)].splitlines(keepends=True)
    last = max(i for i, line in enumerate(lines) if line.startswith(("from ", "import ")))
    while not lines[last].rstrip().endswith(")") and "(" in lines[last]:
        last += 1  # the end of a parenthesised import
    head = "".join(lines[: last + 1])
    head += f"from sandbox_forge.rest.routes import {domain} as {alias}\n"
    rest = text[len("".join(lines[: last + 1])) :]
    end = rest.index("\n]\n", rest.index(anchor))
    return head + rest[:end] + f"\n    {alias}," + rest[end:]


def scaffold(root: Path, name: str, domain: str, toolset: str, route: str) -> list[Path]:
    _check(name, domain, toolset, route)
    files = files_of(root, name, domain, toolset, route)
    taken = [path for path in files if path.exists()]
    if taken:
        raise SystemExit(f"already there: {', '.join(str(p) for p in taken)}; add by hand")
    for path, text in files.items():
        path.write_text(text)
    app = root / "sandbox_forge/app.py"
    app.write_text(add_to_app(app.read_text(), domain))
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
    parser.add_argument("--domain", required=True, help="its module's name, e.g. deployments")
    parser.add_argument("--toolset", required=True, help="an existing toolset, e.g. repos")
    parser.add_argument(
        "--route", help="GitHub's REST path (default: /repos/{owner}/{repo}/<domain>)"
    )
    parser.add_argument("--root", type=Path, default=ROOT, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    route = args.route or "/repos/{owner}/{repo}/" + args.domain.replace("_", "-")
    written = scaffold(args.root, args.name, args.domain, args.toolset, route)
    for path in written:
        print(path.relative_to(args.root))
    print("next: make docs (the tool index, TOOLS.md) and make snapshots; then make lint")
    return 0


if __name__ == "__main__":
    sys.exit(main())
