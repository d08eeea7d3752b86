"""git's proc-receive hook for pushes to a repository with rules (standard library only:
git runs it as a script, inside the push's quarantine).

It reads the pushed commands from receive-pack, asks the forge (FORGE_PUSH_CHECK, a
one-time loopback URL) which of them the rules refuse, prints the forge's GH013/GH006
lines to stderr (the client's "remote:" lines), and answers each ref: `ng <ref> <reason>`,
or `ok` with `option fall-through` so receive-pack updates it as usual. If the forge
cannot be asked, every ref is refused: rules fail closed.
"""

from __future__ import annotations

import json
import os
import sys
import urllib.request

ZERO = "0" * 40
QUARANTINE_VARS = ("GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES")


def read_pkt(stream) -> bytes | None:
    """One pkt-line's payload; None for a flush packet."""
    size = int(stream.read(4), 16)
    return None if size == 0 else stream.read(size - 4)


def read_section(stream) -> list[str]:
    lines = []
    while (pkt := read_pkt(stream)) is not None:
        lines.append(pkt.decode().rstrip("\n"))
    return lines


def write_pkt(stream, text: str | None) -> None:
    if text is None:
        stream.write(b"0000")
    else:
        data = (text + "\n").encode()
        stream.write(b"%04x" % (len(data) + 4) + data)


def ask_forge(commands: list[str]) -> dict:
    payload = {
        "commands": commands,
        "env": {name: os.environ[name] for name in QUARANTINE_VARS if name in os.environ},
    }
    url = os.environ["FORGE_PUSH_CHECK"]
    if not url.startswith("http://"):  # the forge's own loopback address, nothing else
        raise ValueError("FORGE_PUSH_CHECK is not the forge's http URL")
    request = urllib.request.Request(  # noqa: S310 - checked above
        url,
        data=json.dumps(payload).encode(),
        headers={"content-type": "application/json"},
        method="POST",
    )
    with urllib.request.urlopen(request, timeout=120) as response:  # noqa: S310 - loopback
        answer: dict = json.load(response)
    return answer


def main() -> int:
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    read_section(stdin)  # "version=1\0<capabilities>"
    write_pkt(stdout, "version=1")
    write_pkt(stdout, None)
    stdout.flush()
    commands = read_section(stdin)
    try:
        answer = ask_forge(commands)
        verdicts = {item["ref"]: item.get("reason") for item in answer["results"]}
        sys.stderr.write(answer.get("messages", ""))
    except Exception:  # any failure refuses the push
        sys.stderr.write("error: the repository rules could not be checked\n")
        verdicts = {line.split()[2]: "rules could not be checked" for line in commands}
    sys.stderr.flush()
    for line in commands:
        ref = line.split()[2]
        reason = verdicts.get(ref, "rules could not be checked")
        if reason:
            write_pkt(stdout, f"ng {ref} {reason}")
        else:
            write_pkt(stdout, f"ok {ref}")
            write_pkt(stdout, "option fall-through")
    write_pkt(stdout, None)
    stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
