"""How long seeding the sandbox forge's demo takes (what `make run` and the suite pay per
forge): median, min and max wall and CPU seconds over several fresh forges.

    python bench/demo_seed.py [--runs 7]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sandbox_forge import Forge
from sandbox_forge.admin.seed import seed_demo


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    wall: list[float] = []
    cpu: list[float] = []
    for _ in range(args.runs):
        with Forge() as forge:
            started, started_cpu = time.perf_counter(), time.process_time()
            seed_demo(forge)
            wall.append(time.perf_counter() - started)
            cpu.append(time.process_time() - started_cpu)
    for name, figures in (("wall s", wall), ("cpu s (this process)", cpu)):
        print(
            f"seed_demo {name}: median {statistics.median(figures):.3f}"
            f"  min {min(figures):.3f}  max {max(figures):.3f}  ({args.runs} runs)"
        )


if __name__ == "__main__":
    main()
