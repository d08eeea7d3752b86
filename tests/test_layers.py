"""The layer rules (pyproject.toml, [tool.importlinter]) hold, and they bite.

These replace a hand-written import walk: import-linter follows indirect imports too."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).parent / "lint-imports"


def _contract_names() -> list[str]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    return [contract["name"] for contract in config["contracts"]]


def _lint_imports(cwd: Path) -> subprocess.CompletedProcess[str]:
    assert LINT_IMPORTS.exists(), "import-linter is not installed: make venv"
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", "pyproject.toml"],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_every_layer_contract_is_kept():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    for name in _contract_names():
        assert f"{name} KEPT" in result.stdout


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def test_the_contracts_catch_each_kind_of_violation(tmp_path: Path):
    """A miniature of the two packages that breaks every rule once."""
    shutil.copy(ROOT / "pyproject.toml", tmp_path / "pyproject.toml")
    (tmp_path / "tests").mkdir()  # the domains contract's type
    shutil.copy(ROOT / "tests" / "import_contracts.py", tmp_path / "tests" / "import_contracts.py")
    _write(
        tmp_path,
        {
            "github_mcp/__init__.py": "",
            "github_mcp/cli/__init__.py": "",
            "github_mcp/apps/__init__.py": "",
            "github_mcp/serving/__init__.py": "",
            "github_mcp/status/__init__.py": "",
            "github_mcp/hosted/__init__.py": "",
            "github_mcp/catalog/__init__.py": "",
            "github_mcp/pipeline/__init__.py": "",
            "github_mcp/state/__init__.py": "",
            "github_mcp/approvals/__init__.py": "",
            "github_mcp/policy/__init__.py": "",
            "github_mcp/config/__init__.py": "",
            "github_mcp/monitoring/__init__.py": "",
            "github_mcp/kernel/__init__.py": "import github_mcp.policy\n",  # a layer reaching up
            # two modules of one package importing each other, one of them only for typing
            "github_mcp/kernel/errors.py": "import github_mcp.kernel.ids\n",
            "github_mcp/kernel/ids.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    import github_mcp.kernel.errors\n"
            ),
            # The composition roots may import the forge (the contract lists these imports).
            "github_mcp/cli/main.py": "import sandbox_forge\nimport sandbox_forge.cli\n",
            "github_mcp/cli/demo.py": "import sandbox_forge\nimport sandbox_forge.forge\n",
            "github_mcp/status/page.py": "import sandbox_forge\n",  # not a composition root
            "github_mcp/tools/__init__.py": "",
            "github_mcp/tools/handler.py": "import github_mcp.github.client\n",
            # a tool module using another domain's service, a tools helper using a domain's
            "github_mcp/tools/issues.py": "import github_mcp.services.pulls\n",
            "github_mcp/tools/_pull_targets.py": "import github_mcp.services.pulls\n",
            "github_mcp/services/pulls/__init__.py": "",
            "tests/__init__.py": "",
            "github_mcp/services/__init__.py": "import mcp\nimport github_mcp.tools\n",
            "github_mcp/github/__init__.py": "",
            "github_mcp/github/client.py": "",
            "sandbox_forge/__init__.py": "import github_mcp\n",
            "sandbox_forge/forge.py": "import sandbox_forge.app\n",
            "sandbox_forge/cli.py": "",
            "sandbox_forge/route_table.py": "",
            "sandbox_forge/contract/__init__.py": "",
            "sandbox_forge/app.py": "import sandbox_forge.admin.seed_collab\n",
            "sandbox_forge/admin/__init__.py": "",
            "sandbox_forge/admin/seed_collab.py": "",
            "sandbox_forge/admin/demo_collab.py": "",
            "sandbox_forge/admin/demo_collab_data.py": "import sandbox_forge.admin.seed\n",
            "sandbox_forge/admin/seed.py": "import sandbox_forge.admin.demo_collab_data\n",
            # every forge layer exists; the stores reach up into the REST layer, for typing only
            "sandbox_forge/__main__.py": "import sandbox_forge.cli\n",
            "sandbox_forge/graphql/__init__.py": "",
            "sandbox_forge/web/__init__.py": "",
            "sandbox_forge/rest/__init__.py": "",
            "sandbox_forge/rules/__init__.py": "",
            "sandbox_forge/stores/__init__.py": (
                "from typing import TYPE_CHECKING\n"
                "if TYPE_CHECKING:\n"
                "    import sandbox_forge.rest.api\n"
            ),
            "sandbox_forge/rest/api.py": "",
            "sandbox_forge/git/__init__.py": "",
            "sandbox_forge/kernel/__init__.py": "",
            "mcp/__init__.py": "",
            "fastmcp/__init__.py": "",
        },
    )
    result = _lint_imports(tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    for name in _contract_names():
        assert f"{name} BROKEN" in result.stdout, name
    assert "github_mcp.status.page -> sandbox_forge" in result.stdout
    assert "github_mcp.cli.main -> sandbox_forge" not in result.stdout
    assert "github_mcp.tools.issues -> github_mcp.services.pulls (l.1)" in result.stdout
    assert "github_mcp.tools._pull_targets -> github_mcp.services.pulls (l.1)" in result.stdout
    assert "No cycles are allowed in github_mcp.kernel." in result.stdout
    assert "No cycles are allowed in sandbox_forge.admin." in result.stdout
    assert "sandbox_forge.stores is not allowed to import sandbox_forge.rest" in result.stdout
