"""Ready-made content: `seed_demo` creates octo-org/demo-app, a small but realistic repo."""

from __future__ import annotations

import secrets
import struct
import textwrap
import zlib
from pathlib import Path
from typing import Any, Protocol

from sandbox_forge.admin.collab_seeding import HoldsForgeState
from sandbox_forge.admin.seeding import FileValue

DEMO_REPO = "octo-org/demo-app"
PRIVATE_REPO = "octo-org/private-notes"


class DemoForge(HoldsForgeState, Protocol):
    """What the demo needs of a running Forge (forge.py, the layer above, is one)."""

    def add_user(
        self,
        login: str,
        type: str = "User",
        name: str | None = None,
        email: str | None = None,
        password: str | None = None,
    ) -> dict[str, Any]: ...

    def add_org_member(self, org: str, login: str, role: str = "member") -> None: ...

    def add_collaborator(self, full_name: str, login: str, role: str = "write") -> None: ...

    def seed_repo(
        self,
        full_name: str,
        files: dict[str, FileValue] | None = None,
        default_branch: str = "main",
        private: bool = False,
        description: str = "",
        branches: dict[str, dict[str, FileValue]] | None = None,
        source_dir: Path | str | None = None,
    ) -> dict[str, Any]: ...


def tiny_png(width: int = 8, height: int = 8) -> bytes:
    """A valid RGB PNG, built by hand so the demo needs no image library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
        )

    def pixel(x: int, y: int) -> bytes:
        return bytes((x * 32 % 256, y * 32 % 256, 160))

    # Each scanline starts with filter type 0.
    rows = b"".join(b"\x00" + b"".join(pixel(x, y) for x in range(width)) for y in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


def _large_csv(min_bytes: int = 220 * 1024) -> str:
    lines = ["id,name,score"]
    i = 0
    size = len(lines[0]) + 1
    while size < min_bytes:
        line = f"{i},user-{i:06d},{(i * 37) % 101}"
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines) + "\n"


def _dedent(text: str) -> str:
    return textwrap.dedent(text).lstrip("\n")


def demo_files() -> dict[str, Any]:
    return {
        **_project_files(),
        **_python_files(),
        **_web_files(),
        **_scanned_files(),
        "docs/guide/getting-started.md": "# Getting started\n\nRun `pytest` from the root.\n",
        "assets/logo.png": tiny_png(),
        "data/large.csv": _large_csv(),
        "scripts/run.sh": ("100755", '#!/bin/sh\nexec python -m pytest "$@"\n'),
    }


def _project_files() -> dict[str, Any]:
    """README, ignore rules (one negated) and pyproject.toml."""
    return {
        "README.md": _dedent(
            """
            # demo-app

            A tiny calculator used to try the GitHub MCP server against the sandbox forge.

            - `src/demo_app/`: the Python package (`pytest` runs `tests/`)
            - `web/`: a small JavaScript module with a jest-style test
            """
        ),
        ".gitignore": "*.log\n!keep.log\n__pycache__/\n.venv/\nbuild/\n",
        "keep.log": "this log is kept on purpose (negated in .gitignore)\n",
        "pyproject.toml": _dedent(
            """
            [project]
            name = "demo-app"
            version = "0.1.0"
            requires-python = ">=3.10"

            [tool.pytest.ini_options]
            testpaths = ["tests"]
            pythonpath = ["src"]
            """
        ),
    }


def _python_files() -> dict[str, Any]:
    """The calculator package and its tests; divide has a bug on purpose."""
    return {
        "src/demo_app/__init__.py": '"""Demo calculator."""\n\nfrom .calc import add, divide\n',
        "src/demo_app/calc.py": _dedent(
            """
            def add(a: int, b: int) -> int:
                return a + b


            def divide(a: float, b: float) -> float:
                # Bug on purpose: integer division, so the demo has a failing test.
                return a // b
            """
        ),
        "tests/test_calc.py": _dedent(
            """
            from demo_app import add, divide


            def test_add():
                assert add(2, 3) == 5


            def test_divide():
                assert divide(7, 2) == 3.5
            """
        ),
    }


def _web_files() -> dict[str, Any]:
    """A small JavaScript module and its jest-style test."""
    return {
        "web/package.json": '{\n  "name": "demo-web",\n  "scripts": {"test": "jest"}\n}\n',
        "web/.gitignore": "node_modules/\ndist/\n!dist/keep.txt\n",
        "web/src/format.js": _dedent(
            """
            function formatScore(score) {
              return `${Math.round(score)} points`;
            }

            module.exports = { formatScore };
            """
        ),
        "web/src/format.test.js": _dedent(
            """
            const { formatScore } = require("./format");

            describe("formatScore", () => {
              test("rounds to whole points", () => {
                expect(formatScore(4.6)).toBe("5 points");
              });
            });
            """
        ),
    }


def _scanned_files() -> dict[str, Any]:
    """What the security alerts point at: a vulnerable pin, a shell command, a key."""
    return {
        # A real vulnerable pin (GHSA-x84v-xcm2-53pg, CVE-2018-18074: requests before
        # 2.20.0 resends Authorization after an HTTPS-to-HTTP redirect), for Dependabot.
        "requirements.txt": "requests==2.19.1\n",
        "src/demo_app/report.py": _dedent(
            """
            import subprocess


            def word_count(path: str) -> str:
                # A shell command built from the caller's text (the code scanning alert).
                return subprocess.check_output("wc -w " + path, shell=True, text=True)
            """
        ),
        # A leaked token for secret scanning, made fresh each time (never in this source).
        "config/dev.env": f"AWS_ACCESS_KEY_ID=AKIA{secrets.token_hex(8).upper()}\n",
    }


def seed_demo(forge: DemoForge) -> dict[str, Any]:
    """Create octo-org/demo-app with a feature branch, then its issues, pull requests and CI
    (seed_collab), and the people who sign in (seed_demo_people); returns the repository
    summary, with the sign-in passwords under "users"."""
    from sandbox_forge.admin.demo_breadth import (
        seed_demo_labels,
        seed_demo_people_extras,
        seed_demo_releases,
    )
    from sandbox_forge.admin.demo_discussions import seed_demo_discussions
    from sandbox_forge.admin.demo_inbox import seed_demo_notifications
    from sandbox_forge.admin.demo_issue_meta import seed_demo_issue_meta
    from sandbox_forge.admin.demo_planning import seed_demo_planning
    from sandbox_forge.admin.demo_projects import seed_demo_projects
    from sandbox_forge.admin.demo_repos import seed_demo_repos
    from sandbox_forge.admin.demo_rules import seed_demo_rules
    from sandbox_forge.admin.demo_security import seed_demo_security
    from sandbox_forge.admin.seed_collab import seed_demo_collab

    summary = seed_demo_repo(forge)
    seed_demo_collab(forge)
    summary["releases"] = seed_demo_releases(forge)
    summary["labels"] = seed_demo_labels(forge)
    summary["users"] = seed_demo_people(forge)
    summary["people"] = seed_demo_people_extras(forge)
    summary["security"] = seed_demo_security(forge)
    summary["notifications"] = seed_demo_notifications(forge)
    summary["planning"] = seed_demo_planning(forge)
    summary["projects"] = seed_demo_projects(forge)
    summary["discussions"] = seed_demo_discussions(forge)
    summary["rulesets"] = [seed_demo_rules(forge)]
    summary["issue_meta"] = seed_demo_issue_meta(forge)
    summary["repos"] = seed_demo_repos(forge)
    return summary


def seed_demo_people(forge: DemoForge) -> dict[str, str]:
    """Users who really differ, with fresh passwords (returned as {login: password}):
    alice owns octo-org (admin on every repository in it); bob may read octo-org/demo-app
    and cannot see the private octo-org/private-notes."""
    forge.seed_repo(
        PRIVATE_REPO,
        {
            "README.md": "# private-notes\n\nOnly octo-org's members may read this.\n",
            "notes/roadmap.md": "- ship the calculator\n- keep bob out of here\n",
        },
        private=True,
        description="Private notes of the octo-org team",
    )
    passwords = {login: secrets.token_urlsafe(12) for login in ("alice", "bob")}
    forge.add_user("alice", name="Alice Admin", password=passwords["alice"])
    forge.add_user("bob", name="Bob Reader", password=passwords["bob"])
    forge.add_org_member("octo-org", "alice", "admin")
    forge.add_collaborator(DEMO_REPO, "bob", "read")
    return passwords


def seed_demo_repo(forge: DemoForge) -> dict[str, Any]:
    """Only the git side of the demo: octo-org/demo-app and its feature branch."""
    forge.add_user("octo-org", type="Organization", name="Octo Org")
    forge.add_user("octocat", name="The Octocat", email="octocat@users.noreply.sandbox")
    return forge.seed_repo(
        DEMO_REPO,
        demo_files(),
        description="Demo calculator for the GitHub MCP sandbox",
        branches={
            "feature/multiply": {
                "src/demo_app/calc.py": demo_files()["src/demo_app/calc.py"]
                + "\n\ndef multiply(a: int, b: int) -> int:\n    return a * b\n",
            }
        },
    )
