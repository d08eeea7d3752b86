"""How soon the operator's surfaces show a GitHub outage, and that liveness never waits.

The sandbox forge and `main.py serve --transport http` run as their own processes. Three
pollers ask every --every seconds: /healthz (liveness, with GitHub's last known state),
/readyz and /status (its GitHub row). Once /readyz has said ready, the forge is frozen
(SIGSTOP, connections left open) for --outage seconds, then thawed. Printed: for each
surface, the seconds from the freeze to its first answer saying GitHub is not reachable,
and from the thaw to its first saying it is again; and the slowest /healthz answer.

    python bench/github_outage_probes.py [--outage 15] [--every 0.25]
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import httpx2 as httpx
from _forge_process import ROOT, ForgeProcess
from memory import TOKEN, start_server

HEADERS = {"Authorization": f"Bearer {TOKEN}"}


def down_according_to(surface: str, url: str) -> tuple[bool | None, float]:
    """(GitHub down?, seconds the answer took); None when the answer said nothing."""
    began = time.monotonic()
    try:
        answer = httpx.get(url + "/" + surface, headers=HEADERS, timeout=30)
    except httpx.TransportError:
        return None, time.monotonic() - began
    took = time.monotonic() - began
    if surface == "healthz":
        return answer.json()["github"]["reachable"] is False, took
    if surface == "readyz":
        return answer.status_code == 503, took
    found = re.search(r'id="github-state">([^<]*)<', answer.text)
    return (found.group(1) != "reachable") if found else None, took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--outage", type=float, default=15.0)
    parser.add_argument("--every", type=float, default=0.25)
    args = parser.parse_args()
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    seen: dict[str, list[tuple[float, bool | None, float]]] = {}
    stop = threading.Event()
    with tempfile.TemporaryDirectory() as tmp:
        forge = ForgeProcess()
        proc, url = start_server(ROOT, forge, Path(tmp))
        try:
            while down_according_to("readyz", url)[0] is not False:
                time.sleep(0.2)

            def poll(surface: str) -> None:
                log = seen.setdefault(surface, [])
                while not stop.is_set():
                    down, took = down_according_to(surface, url)
                    log.append((time.monotonic(), down, took))
                    stop.wait(args.every)

            pollers = [
                threading.Thread(target=poll, args=(s,)) for s in ("healthz", "readyz", "status")
            ]
            for poller in pollers:
                poller.start()
            time.sleep(3)
            frozen = time.monotonic()
            forge.proc.send_signal(signal.SIGSTOP)
            time.sleep(args.outage)
            thawed = time.monotonic()
            forge.proc.send_signal(signal.SIGCONT)
            time.sleep(10)
            stop.set()
            for poller in pollers:
                poller.join()
        finally:
            forge.proc.send_signal(signal.SIGCONT)
            proc.terminate()
            proc.wait(15)
            forge.close()
    print(
        f"GitHub (the forge) frozen {args.outage:g} s; each surface polled every {args.every:g} s"
    )
    for surface, log in seen.items():
        down_at = next((t for t, down, _ in log if t >= frozen and down), None)
        up_at = next((t for t, down, _ in log if t >= thawed and down is False), None)
        shown = f"{down_at - frozen:.1f} s" if down_at else "never"
        back = f"{up_at - thawed:.1f} s" if up_at else "not within 10 s"
        print(f"  /{surface:<8} shows the outage after {shown:>7}, the recovery after {back}")
    slowest = max(took for _, _, took in seen["healthz"])
    print(f"  slowest /healthz answer: {slowest * 1000:.0f} ms ({len(seen['healthz'])} probes)")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
