"""`make new-tool` in a scratch copy of the checkout, for a new domain and for an existing
one: it writes the tool and its service in the domain's home, the forge's route and a test;
the whole lint passes on the result; `make docs` and the snapshots take the new tool in; the
scaffolded test passes against the forge; and the change is 8 files. Bad names and a tool
that is already there are refused before anything is written."""

from __future__ import annotations

import fcntl
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from github_mcp.cli.new_tool import main
from tests.conftest import ROOT

ARGS = ["--name", "list_deployments", "--domain", "deployments", "--toolset", "repos"]


def _run(*argv: str, cwd) -> str:
    done = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, check=False)
    assert done.returncode == 0, (argv, done.stdout[-3000:], done.stderr[-3000:])
    return done.stdout


MYPY = ["-m", "mypy", "github_mcp", "sandbox_forge", "main.py", "extra_tools.py"]


def _copy_mypy_cache(dest: Path) -> None:
    """The checkout's mypy cache, brought up to date first (as `make lint` leaves it), into
    `dest`: a full check takes minutes on a busy machine, an incremental one seconds. Under
    a lock, so parallel workers build it once. mypy's verdict on the checkout is not this
    test's business (the scratch copy's run is), only its cache."""
    cache = ROOT / ".mypy_cache"
    cache.mkdir(exist_ok=True)
    with open(ROOT / ".mypy_cache" / "scaffold-test.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        subprocess.run([sys.executable, *MYPY], cwd=ROOT, capture_output=True, check=False)
        shutil.copytree(cache, dest, ignore=shutil.ignore_patterns("*.lock"))


@pytest.fixture
def scratch(tmp_path):
    """The checkout's files (tracked, or new and not ignored) as they are now, with git to
    tell what the scaffold changed."""
    tracked = _run("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", cwd=ROOT)
    tracked = tracked.split("\0")
    copy = tmp_path / "checkout"
    for name in filter(None, tracked):
        source = ROOT / name
        if source.is_file():
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, copy / name)
    if (ROOT / ".cache").exists():
        (copy / ".cache").symlink_to((ROOT / ".cache").resolve())
    # incremental: only what the scaffold wrote is checked anew, the verdict is the same
    _copy_mypy_cache(copy / ".mypy_cache")
    for step in (["init", "-q"], ["add", "-A"], ["-c", "user.name=t", "-c", "user.email=t@e",
                 "commit", "-qm", "base"]):  # fmt: skip
        _run("git", *step, cwd=copy)
    return copy


NEW_DOMAIN = (
    ARGS,
    [
        "github_mcp/tools/deployments.py",
        "github_mcp/services/deployments.py",
        "sandbox_forge/rest/routes/deployments.py",
        "tests/test_tools_deployments.py",
    ],
    ["?", "?", "?", "?"],
    "list_deployments",
)
# an existing domain: the tool appended to its module, the service a new module of its
# package, the route and the test named after the tool (the domain's names are taken)
OLD_DOMAIN = (
    ["--name", "list_code_scanning_analyses", "--domain", "security",
     "--toolset", "code_security", "--route", "/repos/{owner}/{repo}/code-scanning/analyses"],
    [
        "github_mcp/tools/security.py",
        "github_mcp/services/security/list_code_scanning_analyses.py",
        "sandbox_forge/rest/routes/list_code_scanning_analyses.py",
        "tests/test_tools_list_code_scanning_analyses.py",
    ],
    ["M", "?", "?", "?"],
    "list_code_scanning_analyses",
)  # fmt: skip


def _scaffold_one(scratch: Path, argv: list[str], files: list[str], states: list[str], name: str):
    """One tool scaffolded, the docs and snapshots regenerated: 8 files, then committed."""
    py = sys.executable
    printed = _run(py, "-m", "github_mcp.cli.new_tool", *argv, cwd=scratch)
    assert printed.splitlines()[:5] == [*files, "sandbox_forge/app.py"]
    _run(py, "-m", "github_mcp", "docs", cwd=scratch)
    _run(py, "-m", "tests.tool_snapshots", cwd=scratch)
    changed = _run("git", "status", "--porcelain", "--untracked-files=all", cwd=scratch)
    found = {line[3:]: line[:2].strip()[0] for line in changed.splitlines()}
    assert found == {
        **dict(zip(files, states, strict=True)),
        "docs/TOOLS.md": "M",
        "github_mcp/pipeline/tool_index.json": "M",
        "sandbox_forge/app.py": "M",
        f"tests/snapshots/tools/{name}.json": "?",
    }
    assert len(found) == 8  # a read tool with its service and forge route
    tools_md = (scratch / "docs" / "TOOLS.md").read_text()
    assert f"| `{name}(full_name, limit, cursor)` | read |" in tools_md
    for step in (
        ["add", "-A"],
        ["-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", name],
    ):
        _run("git", *step, cwd=scratch)


@pytest.mark.timeout(900)
def test_the_scaffold_writes_tools_the_lint_and_the_suite_accept(scratch):
    """A tool in a new domain, then one in an existing domain, in the same checkout; then
    the whole lint and the scaffolded tests over both (one run: lint and mypy are most of
    the cost)."""
    for case in (NEW_DOMAIN, OLD_DOMAIN):
        _scaffold_one(scratch, *case)
    py, bin_dir = sys.executable, ROOT / ".venv" / "bin"
    # the whole lint, as make lint runs it (the domain contract included)
    _run(py, "-m", "ruff", "check", ".", cwd=scratch)
    _run(py, "-m", "ruff", "format", "--check", ".", cwd=scratch)
    _run(str(bin_dir / "lint-imports"), "--no-cache", cwd=scratch)
    _run(py, *MYPY, cwd=scratch)
    tests = [
        NEW_DOMAIN[1][3],
        OLD_DOMAIN[1][3],
        "tests/test_tool_snapshots.py",
        "tests/test_docs.py",
    ]
    out = _run(py, "-m", "pytest", "-q", "-p", "no:xdist", "-p", "no:cacheprovider", *tests,
               cwd=scratch)  # fmt: skip
    assert " passed" in out and "failed" not in out, out[-2000:]
    assert re.search(r"\b([4-9]|\d\d+) passed", out), out[-2000:]  # both tools' two tests


@pytest.mark.parametrize(
    ("argv", "complaint"),
    [
        (["--name", "List-Deployments", "--domain", "deployments", "--toolset", "repos"], "NAME="),
        (["--name", "list_things", "--domain", "class", "--toolset", "repos"], "DOMAIN="),
        (["--name", "list_things", "--domain", "things", "--toolset", "nope"], "TOOLSET="),
        ([*ARGS, "--route", "/user/deployments"], "ROUTE="),
        (["--name", "list_labels", "--domain", "issues", "--toolset", "labels"], "already there"),
        (["--name", "list_labels", "--domain", "labels", "--toolset", "labels"], "already there"),
    ],
)
def test_bad_arguments_are_refused_before_anything_is_written(tmp_path, argv, complaint):
    root = tmp_path / "checkout"
    shutil.copytree(ROOT / "github_mcp" / "tools", root / "github_mcp" / "tools")
    before = sorted(p.relative_to(root) for p in root.rglob("*"))
    with pytest.raises(SystemExit) as refused:
        main([*argv, "--root", str(root)])
    assert complaint in str(refused.value)
    assert sorted(p.relative_to(root) for p in root.rglob("*")) == before
