"""What recording provenance costs a GitHub answer: the client parses each JSON body with a
hook that notes the repositories it names (github/provenance.py), and a cached answer
served again replays what its parse found. Measured on GitHub's own published examples
(its OpenAPI description), repeated to realistic page sizes: a page of pull requests (the
largest common answer: each names its head and base repositories in full), of issues, of
notifications, and of code search hits.

Printed per body: its size, the median time of a plain `json.loads`, of the parse with the
hook while a call records, their ratio, the median time of a cached body's replay (its
sources as the parse found them) and of a walk of a cached body whose sources were not
kept (one filled from the replicas' shared cache). The load average is printed with the
figures.

    .venv/bin/python bench/provenance.py [--repeat 200]
"""

from __future__ import annotations

import argparse
import copy
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from github_mcp.github import provenance  # noqa: E402
from github_mcp.github.provenance import AnswerReader  # noqa: E402

OPENAPI = ROOT / ".cache/openapi/node_modules/@octokit/openapi/generated/api.github.com.json"
BODIES = {
    "pull requests x30": ("pull-request-simple-items", 30),
    "issues x30": ("issue-items", 30),
    "notifications x50": ("thread-items", 50),
    "code search x30": ("code-search-result-item-paginated", 30),
}


def median_ms(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def _recorded(reader: AnswerReader, raw: bytes) -> None:
    with provenance.recording():
        reader.parse(raw)


def _replayed(reader: AnswerReader, named: provenance.Sources) -> None:
    with provenance.recording():
        reader.replay(named)


def _walked(reader: AnswerReader, parsed: object) -> None:
    with provenance.recording():
        reader.body(parsed)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=200)
    repeat = parser.parse_args().repeat
    examples = json.loads(OPENAPI.read_text())["components"]["examples"]
    reader = AnswerReader("https://api.github.com", "https://github.com")
    print(f"load average {os.getloadavg()[0]:.2f}; medians of {repeat} runs")
    print(
        f"{'body':22} {'bytes':>9} {'parse ms':>9} {'+sources':>9} {'ratio':>6} "
        f"{'replay ms':>10} {'walk ms':>8}"
    )
    for label, (name, count) in BODIES.items():
        value = examples[name]["value"]
        items = value.get("items", value) if isinstance(value, dict) else value
        page = [copy.deepcopy(items[0]) for _ in range(count)]
        raw = json.dumps(page).encode()
        with provenance.recording():
            parsed, named = reader.parse_named(raw)
        assert named is not None
        plain = median_ms(lambda raw=raw: json.loads(raw), repeat)
        hooked = median_ms(lambda raw=raw: _recorded(reader, raw), repeat)
        again = median_ms(lambda named=named: _replayed(reader, named), repeat)
        walked = median_ms(lambda parsed=parsed: _walked(reader, parsed), repeat)
        print(
            f"{label:22} {len(raw):>9} {plain:>9.2f} {hooked:>9.2f} {hooked / plain:>6.2f} "
            f"{again:>10.3f} {walked:>8.2f}"
        )


if __name__ == "__main__":
    main()
