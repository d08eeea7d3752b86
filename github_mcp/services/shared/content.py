"""File content helpers: binary detection, UTF-8 tail trimming,
line slicing, byte-budget cuts and the git blob hash (invisible characters:
github_mcp.kernel.hidden_text).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from github_mcp.kernel.errors import invalid_input

__all__ = [
    "BINARY_SNIFF_BYTES",
    "Decoded",
    "Slice",
    "cut_text",
    "detect_and_decode",
    "git_blob_sha",
    "slice_lines",
    "trim_utf8_tail",
]

BINARY_SNIFF_BYTES = 8192
# When a cut buffer still fails to decode near its end, drop up to this many
# more bytes before calling it binary.
_TAIL_RETRIES = 3


@dataclass(frozen=True, slots=True)
class Decoded:
    text: str | None
    is_binary: bool
    magic_hex: str
    dropped_tail_bytes: int = 0  # bytes trimmed off a truncated buffer's end


@dataclass(frozen=True, slots=True)
class Slice:
    text: str
    start_line: int
    end_line: int  # inclusive; start_line - 1 when the slice is empty
    total_lines: int
    next_start_line: int | None


def trim_utf8_tail(buf: bytes) -> bytes:
    """Drop an incomplete UTF-8 sequence at the end of `buf`, if there is one.

    Walks back over at most three continuation bytes (10xxxxxx) to the lead
    byte, reads how long its sequence should be (110xxxxx: 2, 1110xxxx: 3,
    11110xxx: 4), and cuts before the lead when bytes are missing. Anything
    else (ASCII, a complete sequence, garbage) is left for the decoder.
    """
    n = len(buf)
    i = n - 1
    stop = max(n - 4, -1)
    while i > stop and (buf[i] & 0xC0) == 0x80:
        i -= 1
    if i < 0 or i == stop:
        return buf
    lead = buf[i]
    if lead & 0x80 == 0:
        need = 1
    elif lead & 0xE0 == 0xC0:
        need = 2
    elif lead & 0xF0 == 0xE0:
        need = 3
    elif lead & 0xF8 == 0xF0:
        need = 4
    else:
        return buf
    return buf[:i] if n - i < need else buf


def detect_and_decode(buf: bytes, *, truncated: bool) -> Decoded:
    """Decode `buf` as UTF-8 text, or classify it as binary.

    Binary: a NUL byte in the first 8 KiB, or bytes that are not valid UTF-8.
    When `truncated` (the buffer is a prefix of the file), an incomplete final
    character is trimmed first, so the text never ends in a broken character.
    A BOM is kept: it is part of the file, and dropping it would change the
    bytes written back.
    """
    magic = bytes(buf[:4]).hex()
    if not buf:
        return Decoded("", False, magic)
    if 0 in buf[:BINARY_SNIFF_BYTES]:
        return Decoded(None, True, magic)
    data = trim_utf8_tail(buf) if truncated else bytes(buf)
    for _ in range(_TAIL_RETRIES + 1):
        try:
            return Decoded(data.decode("utf-8"), False, magic, len(buf) - len(data))
        except UnicodeDecodeError as exc:
            # Only a failure at the very end of a cut buffer is worth a retry.
            if not truncated or exc.end != len(data) or not data:
                break
            data = data[:-1]
    return Decoded(None, True, magic)


def git_blob_sha(data: bytes) -> str:
    """The object id git gives `data` as a blob: SHA-1 of b"blob <len>\\0" + data."""
    h = hashlib.sha1(b"blob %d\x00" % len(data), usedforsecurity=False)
    h.update(data)
    return h.hexdigest()


def slice_lines(text: str, start_line: int, max_lines: int, line_numbers: bool = False) -> Slice:
    """Lines [start_line, start_line + max_lines) of `text` (1-based).

    Lines end at '\\n' only and keep their own endings, so the slice is the
    file's exact bytes; with `line_numbers` each line is prefixed with its
    number, right-aligned, and a tab (as `cat -n` does).
    """
    if start_line < 1:
        raise invalid_input(
            "start_line must be at least 1",
            hint="Lines are numbered from 1; give start_line 1 or more.",
        )
    if max_lines < 1:
        raise invalid_input("max_lines must be at least 1", hint="Give max_lines 1 or more.")
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()  # text ends with a newline (or is empty): no extra line
    total = len(lines)
    if start_line > total:
        if total == 0 and start_line == 1:
            return Slice("", 1, 0, 0, None)
        raise invalid_input(
            f"start_line {start_line} is past the end of the file ({total} lines)",
            hint=f"use a start_line between 1 and {max(total, 1)}",
            total_lines=total,
        )
    end = min(total, start_line + max_lines - 1)
    chosen = lines[start_line - 1 : end]
    with_newline = end < total or text.endswith("\n")
    if line_numbers:
        width = len(str(end))
        body = "\n".join(f"{n:>{width}}\t{line}" for n, line in enumerate(chosen, start_line))
    else:
        body = "\n".join(chosen)
    if with_newline:
        body += "\n"
    return Slice(body, start_line, end, total, end + 1 if end < total else None)


def cut_text(text: str, max_bytes: int) -> tuple[str, bool]:
    """Cut `text` to at most `max_bytes` of UTF-8 without splitting a character."""
    if max_bytes < 0:
        raise invalid_input("max_bytes must not be negative", hint="Give max_bytes 0 or more.")
    if len(text) <= max_bytes // 4:
        return text, False  # even 4 bytes per character fits
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    i = max_bytes
    while i > 0 and (data[i] & 0xC0) == 0x80:
        i -= 1
    return data[:i].decode("utf-8", "surrogatepass"), True
