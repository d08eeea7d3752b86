"""The package as a user installs it: a wheel with only its own packages and its declared
dependencies, installed into a fresh venv, whose `github-mcp-controller` script serves
stdio to a real MCP client; plus server.json (the MCP registry's entry) and the image.

Offline on purpose: the fresh venv gets our wheel with `--no-deps --no-index`, and the
dependencies already installed here are made visible to it by a `.pth` line (after the
venv's own site-packages). `pip check` in that venv then proves that every dependency the
wheel declares resolves to an installed version, which is what an index install checks.
"""

from __future__ import annotations

import email
import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import jsonschema
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.conftest import ROOT

SCRIPT = "github-mcp-controller"
SEED_DIR = ROOT / "sandbox_forge" / "admin" / "demo_seed"


def _clean_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    return env | {"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """Built from a copy of what the build reads, so no build/ lands in the checkout."""
    tmp = tmp_path_factory.mktemp("wheel")
    src = tmp / "src"
    src.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, src / name)
    for package in ("github_mcp", "sandbox_forge"):
        shutil.copytree(ROOT / package, src / package, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(out), str(src)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (built,) = out.glob("*.whl")
    return built


@pytest.fixture(scope="module")
def venv(wheel, tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("venv") / "v"
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(root)], check=True, timeout=120
    )
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = root / "lib" / version / "site-packages"
    (site / "installed-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(root / "bin" / "python"), "install",
         "--no-deps", "--no-index", "-q", str(wheel)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    return root


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
    assert "github_mcp/tools/destructive.py" in names  # delete_file & co. ship with it
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


def test_server_json_is_valid_against_the_registrys_published_schema():
    schema = json.loads((ROOT / "tests/fixtures/mcp_registry/server.schema.json").read_text())
    server = json.loads((ROOT / "server.json").read_text())
    jsonschema.Draft7Validator(schema, format_checker=jsonschema.FormatChecker()).validate(server)
    assert server["$schema"] == schema["$id"]
    assert server["version"] == _metadata_version()
    (package,) = server["packages"]
    assert package["identifier"] == "github-mcp-controller" == _project_name()
    assert package["version"] == _metadata_version()
    # the registry's runner (uvx) starts the console script with these arguments
    assert [a["value"] for a in package["packageArguments"]] == ["serve"]


def test_an_invalid_server_json_is_refused_by_the_schema():
    """The check can fail: a name without a namespace breaks the registry's pattern."""
    schema = json.loads((ROOT / "tests/fixtures/mcp_registry/server.schema.json").read_text())
    server = json.loads((ROOT / "server.json").read_text()) | {"name": "no-namespace"}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(server)


def _project_name() -> str:
    return re.search(r'^name = "([^"]+)"', (ROOT / "pyproject.toml").read_text(), re.M)[1]  # type: ignore[index]


def test_the_image_runs_the_console_script():
    """Checked from the Dockerfile's text (no docker daemon in the test machine)."""
    dockerfile = (ROOT / "Dockerfile").read_text()
    entry = re.search(r"^ENTRYPOINT (.+)$", dockerfile, re.M)
    assert entry and json.loads(entry[1]) == [SCRIPT]
    assert re.search(r"^RUN pip install --no-deps /tmp/src", dockerfile, re.M)
    compose = (ROOT / "deploy" / "compose.yaml").read_text()
    assert 'command: ["serve",' in compose and "main.py" not in compose
