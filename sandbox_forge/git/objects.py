"""Git objects as plain data, and parsers for what git prints about them."""

from __future__ import annotations

import re
import time
from dataclasses import dataclass, field

ZERO_SHA = "0" * 40
# Marks commits that the forge signs itself ("web-flow"), so they verify as GitHub's would.
FORGE_SIGNATURE = (
    "-----BEGIN PGP SIGNATURE-----\n\nsandbox-forge-web-flow\n-----END PGP SIGNATURE-----"
)


@dataclass(frozen=True)
class Signature:
    name: str
    email: str
    timestamp: int
    tz: str = "+0000"

    def header(self) -> str:
        return f"{self.name} <{self.email}> {self.timestamp} {self.tz}"

    @classmethod
    def parse(cls, text: str) -> Signature:
        match = re.match(r"^(.*) <(.*)> (\d+) ([+-]\d{4})$", text)
        if not match:
            return cls(text, "", 0)
        return cls(match[1], match[2], int(match[3]), match[4])


@dataclass(frozen=True)
class CommitInfo:
    sha: str
    tree: str
    parents: tuple[str, ...]
    author: Signature
    committer: Signature
    message: str
    signature: str | None = None


def now_signature(name: str, email: str) -> Signature:
    return Signature(name=name, email=email, timestamp=int(time.time()))


def forge_signed(info: CommitInfo) -> bool:
    """Signed with the forge's web-flow key: GitHub would show it verified."""
    return info.signature is not None and info.signature.strip() == FORGE_SIGNATURE


@dataclass(frozen=True)
class TreeEntry:
    mode: str
    type: str
    sha: str
    path: str
    size: int | None = None


@dataclass(frozen=True)
class TreeChange:
    """One entry of a tree edit: sha None deletes the path (and everything below it)."""

    path: str
    mode: str = "100644"
    sha: str | None = None


@dataclass
class FileDiff:
    status: str
    path: str
    old_path: str | None
    old_sha: str | None
    new_sha: str | None
    additions: int = 0
    deletions: int = 0
    binary: bool = False
    patch: str | None = None
    mode: str = field(default="100644")


_STATUS = {
    "A": "added",
    "D": "removed",
    "M": "modified",
    "R": "renamed",
    "C": "copied",
    "T": "changed",
}


def parse_commit(sha: str, raw_bytes: bytes) -> CommitInfo:
    raw = raw_bytes.decode("utf-8", "replace")
    header, _, message = raw.partition("\n\n")
    tree, parents, author, committer, signature = "", [], "", "", None
    lines = header.split("\n")
    i = 0
    while i < len(lines):
        key, _, value = lines[i].partition(" ")
        i += 1
        continuation = []
        while i < len(lines) and lines[i].startswith(" "):
            continuation.append(lines[i][1:])
            i += 1
        if key == "tree":
            tree = value
        elif key == "parent":
            parents.append(value)
        elif key == "author":
            author = value
        elif key == "committer":
            committer = value
        elif key == "gpgsig":
            signature = "\n".join([value, *continuation])
    return CommitInfo(
        sha=sha,
        tree=tree,
        parents=tuple(parents),
        author=Signature.parse(author),
        committer=Signature.parse(committer),
        message=message,
        signature=signature,
    )


def parse_raw_diff(raw: bytes) -> list[FileDiff]:
    return split_raw_diff(raw)[0]


def split_raw_diff(raw: bytes) -> tuple[list[FileDiff], bytes]:
    """--raw -z records, and what follows them: git prints a --numstat asked for in the same
    run after every raw record, so the rest is exactly what --numstat alone prints."""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    files: list[FileDiff] = []
    i = 0
    while i < len(fields) and fields[i].startswith(":"):
        meta = fields[i][1:].split()
        _old_mode, new_mode, old_sha, new_sha, status = meta[:5]
        letter = status[0]
        if letter in "RC":
            old_path, path = fields[i + 1], fields[i + 2]
            i += 3
        else:
            old_path, path = None, fields[i + 1]
            i += 2
        files.append(
            FileDiff(
                status=_STATUS.get(letter, "modified"),
                path=path,
                old_path=old_path,
                old_sha=None if old_sha == ZERO_SHA else old_sha,
                new_sha=None if new_sha == ZERO_SHA else new_sha,
                mode=new_mode,
            )
        )
    return files, "\0".join(fields[i:]).encode("utf-8", "surrogateescape")


def parse_numstat(raw: bytes) -> list[tuple[int | None, int | None]]:
    """numstat -z: "add\\tdel\\tpath\\0" or, for renames, "add\\tdel\\t\\0old\\0new\\0"."""
    fields = raw.decode("utf-8", "surrogateescape").split("\0")
    stats: list[tuple[int | None, int | None]] = []
    i = 0
    while i < len(fields):
        record = fields[i]
        if not record:
            i += 1
            continue
        add, dele, path = record.split("\t", 2)
        i += 1 if path else 3
        if add == "-":
            stats.append((None, None))
        else:
            stats.append((int(add), int(dele)))
    return stats
