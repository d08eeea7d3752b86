"""The package as a user installs it (tests/installed.py): a wheel with only its own
packages and its declared dependencies, installed into a fresh venv, whose
`github-mcp-controller` script serves stdio to a real MCP client and lists, checks and
calls tools; `pip install .` from a checkout leaves nothing behind; and server.json (the
MCP registry's entry) against the schema the registry publishes. The Docker image is
tests/test_image.py's.
"""

from __future__ import annotations

import email
import json
import re
import subprocess
import sys
import zipfile
from pathlib import Path

import jsonschema
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT
from tests.installed import (
    SCRIPT,
    build_wheel,
    builtin_counts,
    clean_env,
    fresh_venv,
    tracked_copy,
)

SEED_DIR = ROOT / "sandbox_forge" / "admin" / "demo_seed"
_clean_env = clean_env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    return build_wheel(tmp_path_factory.mktemp("wheel"))


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    return fresh_venv(wheel, tmp_path_factory.mktemp("venv") / "v")


def _metadata(wheel: Path) -> email.message.Message:
    with zipfile.ZipFile(wheel) as archive:
        name = next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        return email.message_from_bytes(archive.read(name))


def _pins() -> dict[str, str]:
    pins = {}
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if match := re.match(r"([A-Za-z0-9_.-]+)==(\S+)", line):
            pins[canonicalize_name(match[1])] = match[2]
    return pins


def _direct() -> set[str]:
    names: set[str] = set()
    for line in (ROOT / "requirements.txt").read_text().splitlines():
        if line.startswith("# Direct:"):
            text = re.sub(r"\(.*?(\)|$)", "", line.removeprefix("# Direct:"))
            names |= {canonicalize_name(n) for n in text.split()}
    return names


def test_the_wheel_holds_only_its_own_packages_and_the_demo_seed(wheel):
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        entry_points = next(n for n in names if n.endswith("entry_points.txt"))
        scripts = archive.read(entry_points).decode()
    tops = {n.split("/")[0] for n in names if not n.split("/")[0].endswith(".dist-info")}
    assert tops == {"github_mcp", "sandbox_forge"}, tops  # no main, no extra_tools
    assert f"{SCRIPT} = github_mcp.cli.entry:main" in scripts
    assert "github_mcp/tools/repos/destructive.py" in names  # delete_file & co. ship with it
    seed = {p.name for p in SEED_DIR.iterdir()}
    assert seed and {f"sandbox_forge/admin/demo_seed/{n}" for n in seed} <= set(names)


def test_the_wheel_declares_every_direct_dependency_with_a_range_its_pin_meets(wheel):
    declared = {
        canonicalize_name(r.name): r
        for r in map(Requirement, _metadata(wheel).get_all("Requires-Dist") or [])
    }
    pins = _pins()
    assert _direct() and set(declared) == _direct()
    for name, requirement in declared.items():
        assert requirement.specifier.contains(pins[name]), (name, str(requirement), pins[name])
        assert any(s.operator == "<" for s in requirement.specifier), f"{name}: no upper bound"


def test_the_demo_seed_copies_match_the_recorded_fixtures():
    from sandbox_forge.admin.demo_collab_data import SEED_SOURCES

    assert {p.name for p in SEED_DIR.iterdir()} == set(SEED_SOURCES)
    for name, source in SEED_SOURCES.items():
        assert (SEED_DIR / name).read_text() == (ROOT / "tests" / "fixtures" / source).read_text()


def test_the_fresh_venv_imports_the_installed_package_and_its_dependencies_resolve(venv, tmp_path):
    python = str(venv / "bin" / "python")
    where = subprocess.run(
        [python, "-c", "import github_mcp, sandbox_forge; print(github_mcp.__file__)"],
        cwd=tmp_path, env=_clean_env(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert where.returncode == 0, where.stderr
    assert Path(where.stdout.strip()).is_relative_to(venv)
    for module in ("main", "extra_tools"):
        absent = subprocess.run(
            [python, "-c", f"import {module}"],
            cwd=tmp_path, env=_clean_env(tmp_path), capture_output=True, timeout=60,
        )  # fmt: skip
        assert absent.returncode != 0, f"{module} is importable from the installed package"
    check = subprocess.run(
        [sys.executable, "-m", "pip", "--python", python, "check"],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert check.returncode == 0, check.stdout + check.stderr


def test_the_installed_script_prints_its_version(venv, tmp_path):
    done = subprocess.run(
        [str(venv / "bin" / SCRIPT), "--version"],
        cwd=tmp_path, env=_clean_env(tmp_path), capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{SCRIPT} {_metadata_version()}"


def _metadata_version() -> str:
    return re.search(r'^version = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]  # type: ignore[index]


async def test_the_installed_script_serves_stdio_to_an_mcp_client(
    venv, forge, forge_token, tmp_path
):
    env = _clean_env(tmp_path) | {
        "GITHUB_API_URL": forge.base_url,
        "GITHUB_TOKEN": forge_token,
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl"),
        "GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
    }
    transport = StdioTransport(
        command=str(venv / "bin" / SCRIPT), args=["serve"], env=env, cwd=str(tmp_path)
    )
    async with Client(transport) as client:
        names = {t.name for t in await client.list_tools()}
        me = await client.call_tool("get_me", {})
    assert {"get_file_contents", "create_pull_request", "delete_file", "move_file"} <= names
    assert me.structured_content and me.structured_content["login"] == "octocat"


def test_the_installed_script_seeds_the_demo_forge_from_package_data(venv, tmp_path):
    """`call --sandbox-forge always` starts the packaged forge with the packaged seed."""
    done = subprocess.run(
        [str(venv / "bin" / SCRIPT), "call", "get_file_contents", "--sandbox-forge", "always",
         "--arg", "full_name=octo-org/demo-app", "--arg", "path=tests/test_inventory.py",
         "--arg", "ref=feature/cart-and-inventory"],
        cwd=tmp_path, env=_clean_env(tmp_path) | {"GITHUB_MCP_WORKSPACE_DIR": str(tmp_path / "ws"),
        "GITHUB_MCP_AUDIT_LOG": str(tmp_path / "audit.jsonl")},
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    content = json.loads(done.stdout)["content"]
    assert content == (SEED_DIR / "test_inventory.py.txt").read_text()


def _registry_schema() -> dict:
    """The registry's published schema for server.json's `$schema` date, as the PyPI package
    skillsaw ships it (copied byte for byte from the registry's static site, whose
    revision its SCHEMA-SOURCE.md names)."""
    from importlib import resources

    server = json.loads((ROOT / "server.json").read_text())
    date = re.search(r"/schemas/(\d{4})-(\d\d)-(\d\d)/server\.schema\.json$", server["$schema"])
    assert date, server["$schema"]
    folder = resources.files("skillsaw.schemas.mcp_registry") / f"v{date[1]}_{date[2]}_{date[3]}"
    return json.loads((folder / "server.schema.json").read_text())


def _validator(schema: dict) -> jsonschema.Draft7Validator:
    return jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker())


def test_server_json_is_valid_against_the_registrys_current_published_schema():
    schema = _registry_schema()
    server = json.loads((ROOT / "server.json").read_text())
    _validator(schema).validate(server)
    # the newest schema the registry has published (the one its publisher accepts)
    assert server["$schema"] == schema["$id"]
    assert "/schemas/2025-12-11/" in schema["$id"]
    assert server["version"] == _metadata_version()
    (package,) = server["packages"]
    assert package["identifier"] == "github-mcp-controller" == _project_name()
    assert package["version"] == _metadata_version()
    # the registry's runner (uvx) starts the console script with these arguments
    assert [a["value"] for a in package["packageArguments"]] == ["serve"]


def test_server_json_states_the_settings_true_defaults():
    """Each variable is one the server reads, and a stated default is the setting's own."""
    from github_mcp.config import Settings

    by_alias = {
        alias: field
        for field in Settings.model_fields.values()
        for alias in getattr(field.validation_alias, "choices", [])
    }
    (package,) = json.loads((ROOT / "server.json").read_text())["packages"]
    stated = {}
    for variable in package["environmentVariables"]:
        field = by_alias.get(variable["name"])
        assert field is not None, f"{variable['name']} is not a setting"
        assert "(default" not in variable["description"], "state it in `default`"
        if "default" in variable:
            expected = field.default
            text = str(expected).lower() if isinstance(expected, bool) else str(expected)
            stated[variable["name"]] = (variable["default"], text)
    assert stated == {
        "GITHUB_MCP_TOOLSETS": ("default", "default"),
        "GITHUB_MCP_READ_ONLY": ("false", "false"),
    }


def test_the_readme_carries_the_registrys_ownership_line(wheel):
    """The registry checks a PyPI package's description for `mcp-name: <server name>`."""
    name = json.loads((ROOT / "server.json").read_text())["name"]
    description = _metadata(wheel).get_payload()
    assert f"mcp-name: {name}" in description


def test_an_invalid_server_json_is_refused_by_the_schema():
    """The check can fail: a name without a namespace breaks the registry's pattern, and a
    description past 100 characters its length."""
    schema = _registry_schema()
    server = json.loads((ROOT / "server.json").read_text())
    with pytest.raises(jsonschema.ValidationError):
        _validator(schema).validate(server | {"name": "no-namespace"})
    with pytest.raises(jsonschema.ValidationError):
        _validator(schema).validate(server | {"description": "x" * 101})


def _project_name() -> str:
    return re.search(r'^name = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]  # type: ignore[index]


def _run(venv: Path, tmp_path: Path, *args: str, **env: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(venv / "bin" / SCRIPT), *args],
        cwd=tmp_path, env=_clean_env(tmp_path) | env, capture_output=True, text=True,
        timeout=300,
    )  # fmt: skip


def test_the_installed_tools_and_check_count_every_tool(venv, tmp_path):
    registered, listed = builtin_counts()
    assert registered > 100 and 40 < listed < registered
    tools = _run(venv, tmp_path, "tools", "--json")
    assert tools.returncode == 0, tools.stderr[-2000:]
    rows = json.loads(tools.stdout)
    assert len(rows) == registered and sum(r["listed"] for r in rows) == listed
    assert {"name": "get_job_logs", "toolset": "actions", "write": False,
            "listed": False} in rows  # fmt: skip
    check = _run(venv, tmp_path, "check")
    assert check.returncode == 0, check.stderr[-2000:]
    report = json.loads(check.stdout)
    assert (report["ok"], report["tools"], report["listed"]) == (True, registered, listed)
    assert report["credential_kind"] == "none" and report["write_tools"] > 30


def test_docs_is_a_checkout_command_that_the_installed_script_does_not_offer(venv, tmp_path):
    helped = _run(venv, tmp_path, "--help")
    assert helped.returncode == 0
    assert "--version" in helped.stdout and "docs" not in helped.stdout
    assert {"serve", "sandbox", "check", "tools", "call"} <= set(re.findall(r"\w+", helped.stdout))
    docs = _run(venv, tmp_path, "docs")
    assert docs.returncode == 2 and "python main.py docs" in docs.stderr, docs.stderr
    site = next((venv / "lib").glob("python3*/site-packages"))
    assert not (site / "docs").exists() and not (tmp_path / "docs").exists()
    # in the checkout the same entry point offers it
    here = subprocess.run(
        [sys.executable, "-m", "github_mcp", "--help"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert re.search(r"^\s+docs\s+regenerate", here.stdout, re.M), here.stdout


def test_call_without_a_token_runs_on_the_sandbox_forge_and_says_so(venv, tmp_path):
    done = _run(venv, tmp_path, "call", "get_repository", "--arg", "full_name=octo-org/demo-app")
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    repo = json.loads(done.stdout)
    assert repo["full_name"] == "octo-org/demo-app" and repo["default_branch"] == "main"
    assert "no GitHub token is set" in done.stderr and "sandbox forge" in done.stderr
    # its state went to the user's own directory, not the directory it ran in
    assert {p.name for p in tmp_path.iterdir()} <= {".local", "cache"}
    assert (tmp_path / ".local" / "state" / "github-mcp-controller").is_dir()
    never = _run(venv, tmp_path, "call", "get_me", "--sandbox-forge", "never",
                 GITHUB_API_URL="http://127.0.0.1:9")  # fmt: skip
    assert never.returncode == 1 and "sandbox forge" not in never.stderr


def test_pip_install_from_a_checkout_leaves_nothing_in_it(tmp_path):
    src = tracked_copy(tmp_path / "src")
    before = {p.relative_to(src) for p in src.rglob("*")}
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "--target", str(tmp_path / "target"), "."],
        cwd=src, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert (tmp_path / "target" / "github_mcp" / "cli" / "entry.py").is_file()
    after = {p.relative_to(src) for p in src.rglob("*")}
    assert sorted(map(str, after - before)) == []
