"""Benchmark the four-layer tree filter (target: 100 000 entries in
<= 0.25 s of CPU, peak memory <= 150 MB).

Builds a deterministic synthetic repository: 100 000 blobs (plus their tree
entries) spread over a few thousand directories up to nine levels deep, with
about 50 nested .gitignore files of realistic patterns, negations included.
Runs `filter_entries` several times and prints the median CPU time, the
first (cold) run, the peak memory and the ratios to the targets.

    python bench/tree_filter.py [--blobs 100000] [--runs 7] [--gitignores 50]
"""

from __future__ import annotations

import argparse
import gc
import random
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from github_mcp.services.repos.tree import TreeEntry, filter_entries

TARGET_CPU_S = 0.25
TARGET_PEAK_MB = 150.0

STEMS = """
index main app utils helpers config server client api models views routes service handler
schema types constants store reducer component button modal form table list item user
account auth session cache queue worker job task parser lexer ast compiler runtime loader
plugin hooks context
""".split()
# weighted: repeated entries are more likely
EXTS = """
.py .py .py .ts .ts .tsx .js .js .go .rs .md .json .yaml .txt .css .html .log .snap .png
.tmp .bak .pyc .svg
""".split()
DIR_NAMES = """
src lib core components pages api utils services models tests fixtures docs examples scripts
internal pkg cmd build dist generated tmp logs node_modules vendor assets static __pycache__
coverage out cache
""".split()

ROOT_GITIGNORE = """\
# Python
__pycache__/
*.py[cod]
*.egg-info/
/build/
dist/
.env
!.env.example
# Node
coverage/
*.log
!important.log
# Generated
**/generated/*.ts
!**/generated/keep.ts
docs/_build/
*.tmp
tmp/
"""

NESTED_GITIGNORES = [
    "*.snap\n!important.snap\n/out\n",
    "logs/**\n!logs/README.md\n*.bak\n!keep.bak\n",
    "cache/\n*.tmp\n!*.keep.tmp\n/local-*\n",
    "# nested\nvendor/\n!vendor/\nfixtures/*.json\n!fixtures/golden.json\n",
    "build\n!build/\n[Bb]in/\nobj/\n*.orig\n",
    "/dist\n*.min.js\n*.map\n!source.map\n",
]


def make_tree(
    blobs: int, gitignores: int, seed: int = 42
) -> tuple[list[TreeEntry], dict[str, str]]:
    rnd = random.Random(seed)
    dirs = [""]
    children: dict[str, int] = {"": 0}
    while len(dirs) < blobs // 12:
        parent = rnd.choice(dirs)
        depth = parent.count("/") + 1 if parent else 0
        if depth >= 9:
            continue
        name = rnd.choice(DIR_NAMES)
        if rnd.random() < 0.5:
            name = f"{name}{rnd.randrange(40)}"
        path = f"{parent}/{name}" if parent else name
        if path in children:
            continue
        children[path] = 0
        dirs.append(path)
    entries: list[TreeEntry] = [TreeEntry(d, "tree", "d" * 40) for d in dirs if d]
    seen: set[str] = set()
    while len(seen) < blobs:
        d = rnd.choice(dirs)
        name = rnd.choice(STEMS)
        if rnd.random() < 0.7:
            name = f"{name}_{rnd.randrange(300)}"
        name += rnd.choice(EXTS)
        path = f"{d}/{name}" if d else name
        if path in seen:
            continue
        seen.add(path)
        size = int(rnd.lognormvariate(8, 1.6))
        entries.append(TreeEntry(path, "blob", "b" * 40, size))
    texts = {"": ROOT_GITIGNORE}
    nested_dirs = rnd.sample([d for d in dirs if d], min(gitignores - 1, len(dirs) - 1))
    for i, d in enumerate(nested_dirs):
        texts[d] = NESTED_GITIGNORES[i % len(NESTED_GITIGNORES)]
        entries.append(TreeEntry(f"{d}/.gitignore", "blob", "c" * 40, 64))
    entries.append(TreeEntry(".gitignore", "blob", "c" * 40, len(ROOT_GITIGNORE)))
    # GitHub returns a recursive listing in git order, which for paths is byte order.
    entries.sort(key=lambda e: e.path.encode())
    return entries, texts


def run(entries: list[TreeEntry], texts: dict[str, str], patterns: list[str]) -> float:
    gc.collect()
    t0 = time.process_time()
    filter_entries(entries, subtree="", gitignores=texts, ignore_patterns=patterns, force=False)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--blobs", type=int, default=100_000)
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--gitignores", type=int, default=50)
    args = ap.parse_args()

    entries, texts = make_tree(args.blobs, args.gitignores)
    patterns = ["*.svg", "/examples/", "!examples/keep.md"]
    print(
        f"tree: {len(entries)} entries ({sum(e.type == 'blob' for e in entries)} blobs), "
        f"{len(texts)} .gitignore files"
    )

    cold = run(entries, texts, patterns)
    times = [run(entries, texts, patterns) for _ in range(args.runs)]
    median = statistics.median(times)

    result = filter_entries(entries, gitignores=texts, ignore_patterns=patterns)
    print("counts:", result.counts, f"excluded_dirs={len(result.excluded_dirs)}")

    gc.collect()
    tracemalloc.start()
    filter_entries(entries, gitignores=texts, ignore_patterns=patterns)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    peak_mb = peak / 1e6

    try:
        import resource

        rss_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    except ImportError:  # pragma: no cover - not on POSIX
        rss_mb = float("nan")

    print(f"cold run CPU:        {cold:.3f} s")
    spread = f"min {min(times):.3f}, max {max(times):.3f}"
    print(f"median CPU ({args.runs} runs): {median:.3f} s  ({spread})")
    print(f"ratio to target:     {median / TARGET_CPU_S:.2f} of {TARGET_CPU_S} s")
    print(
        f"peak traced memory:  {peak_mb:.1f} MB during one filter run "
        f"(ratio {peak_mb / TARGET_PEAK_MB:.2f} of {TARGET_PEAK_MB:.0f} MB)"
    )
    print(f"process max RSS:     {rss_mb:.1f} MB (tree, inputs and interpreter included)")


if __name__ == "__main__":
    main()
