"""The order the suite hands tests to its workers: the files holding its longest tests
first, so under `-n 3 --dist worksteal` no worker starts a three-minute test while the
others are finishing (the run then ends when that one does). Within a file the order stays
the collected one, so module fixtures are set up once as before."""

from __future__ import annotations

import pytest

# Longest first (call times from `--durations` on the full suite at load ~10).
SLOW_FILES = (
    "tests/test_new_tool.py",
    "tests/test_docs_commands.py",
    "tests/replicas/test_bench_smoke.py",
    "tests/ops/test_shutdown.py",
    "tests/replicas/test_scale_bench_smoke.py",
    "tests/replicas/test_shipped_nginx.py",
    "tests/test_demo.py",
    "tests/test_packaging.py",
    "tests/test_cli.py",
    "tests/test_cli_output.py",
)


def slow_files_first(items: list[pytest.Item]) -> None:
    """Reorder `items` in place: SLOW_FILES' tests first, in that order, then the rest."""
    rank = {name: i for i, name in enumerate(SLOW_FILES)}

    def key(indexed: tuple[int, pytest.Item]) -> tuple[int, int]:
        index, item = indexed
        return rank.get(item.nodeid.split("::", 1)[0], len(SLOW_FILES)), index

    items[:] = [item for _, item in sorted(enumerate(items), key=key)]
