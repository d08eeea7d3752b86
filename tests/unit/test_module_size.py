"""No module of the controller or the forge passes 400 lines: one that does has grown two
jobs and is split along the seam between them. This fails and names every offender."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("github_mcp", "sandbox_forge")
MAX_MODULE_LINES = 400


def line_count(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def oversized_modules(root: Path) -> dict[str, int]:
    """Every .py file under the packages in `root` longer than the limit, with its length."""
    found: dict[str, int] = {}
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            lines = line_count(path)
            if lines > MAX_MODULE_LINES:
                found[path.relative_to(root).as_posix()] = lines
    return found


def test_the_check_names_a_long_module_and_spares_a_short_one(tmp_path: Path):
    package = tmp_path / "github_mcp"
    package.mkdir()
    (package / "long.py").write_text("x = 1\n" * (MAX_MODULE_LINES + 1))
    (package / "exact.py").write_text("x = 1\n" * MAX_MODULE_LINES)
    assert oversized_modules(tmp_path) == {"github_mcp/long.py": MAX_MODULE_LINES + 1}


def test_no_module_is_over_400_lines():
    modules = [p for package in PACKAGES for p in (ROOT / package).rglob("*.py")]
    assert len(modules) > 100  # both packages were found
    offenders = oversized_modules(ROOT)
    assert not offenders, "modules over 400 lines (split along a real seam): " + ", ".join(
        f"{name} ({lines})" for name, lines in sorted(offenders.items())
    )
