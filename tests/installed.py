"""The package as a user installs it: a wheel built from a copy of the tracked files (so
nothing lands in the checkout) and a fresh venv holding only that wheel.

Offline on purpose: the fresh venv gets our wheel with `--no-deps --no-index`, and the
dependencies already installed here are made visible to it by a `.pth` line (after the
venv's own site-packages). `pip check` in that venv then proves that every dependency the
wheel declares resolves to an installed version, which is what an index install checks.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

from tests.conftest import ROOT

SCRIPT = "github-mcp-controller"


def tracked_copy(dest: Path) -> Path:
    """The checkout's tracked files (as a fresh clone has them, with this tree's edits)."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT, capture_output=True, check=True, timeout=60,
    ).stdout.decode().split("\0")  # fmt: skip
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    return dest


def build_wheel(tmp: Path) -> Path:
    src = tracked_copy(tmp / "src")
    out = tmp / "dist"
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
         "--no-index", "-q", "-w", str(out), str(src)],
        check=True, capture_output=True, timeout=300,
    )  # fmt: skip
    (built,) = out.glob("*.whl")
    return built


def fresh_venv(wheel: Path, root: Path) -> Path:
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


def clean_env(home: Path) -> dict[str, str]:
    """This process's environment without GitHub settings, with a home of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "GH_"))}
    env.pop("PYTHONPATH", None)
    return env | {"HOME": str(home), "XDG_CACHE_HOME": str(home / "cache")}


def builtin_counts() -> tuple[int, int]:
    """(registered, listed by default) among the built-in tools, counted in this process:
    what `check` and `tools` must report for a default configuration."""
    import github_mcp.tools  # noqa: F401 - registers the built-in tools
    from github_mcp.config import Settings
    from github_mcp.pipeline.registry import REGISTRY
    from github_mcp.pipeline.views import CATALOG_TOOLS, settings_view

    builtin = [s for s in REGISTRY.values() if s.handler.__module__.startswith("github_mcp.")]
    view = settings_view(Settings())
    # a card's own tool is listed only to a client that renders cards
    listed = [
        s for s in builtin if not s.app_only and (s.name in CATALOG_TOOLS or view.shows(s, set()))
    ]
    return len(builtin), len(listed)
