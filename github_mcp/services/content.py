"""File content helpers: binary detection, UTF-8 tail trimming,
line slicing, byte-budget cuts, the git blob hash, and invisible-character
stripping for untrusted text.
"""

from __future__ import annotations

import functools
import hashlib
import re
import unicodedata
from dataclasses import dataclass

from github_mcp.errors import invalid_input

__all__ = [
    "BINARY_SNIFF_BYTES",
    "Decoded",
    "Slice",
    "cut_text",
    "detect_and_decode",
    "git_blob_sha",
    "hidden_characters",
    "make_visible",
    "slice_lines",
    "strip_invisible",
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
        raise invalid_input("start_line must be at least 1")
    if max_lines < 1:
        raise invalid_input("max_lines must be at least 1")
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
        raise invalid_input("max_bytes must not be negative")
    if len(text) <= max_bytes // 4:
        return text, False  # even 4 bytes per character fits
    data = text.encode("utf-8", "surrogatepass")
    if len(data) <= max_bytes:
        return text, False
    i = max_bytes
    while i > 0 and (data[i] & 0xC0) == 0x80:
        i -= 1
    return data[:i].decode("utf-8", "surrogatepass"), True


# Invisible characters that can hide instructions from a human reviewer while
# a model still reads them. Security comes first, so this also removes the
# zero-width joiner inside emoji sequences (a family emoji shows as its
# members) and the ZWNJ some scripts use for shaping; the text stays legible.
_EXTRA_INVISIBLE = (
    "\u115f\u1160\u3164\uffa0"  # Hangul fillers: render as blank
    "\u180b-\u180f"  # Mongolian variation selectors
    "\ufe00-\ufe0f"  # variation selectors 1-16
    "\U000e0100-\U000e01ef"  # variation selectors 17-256 (used to smuggle bytes)
    "\u034f"  # combining grapheme joiner
)


@functools.cache
def _invisible_re() -> re.Pattern[str]:
    # Every format character (category Cf: zero-width, bidi controls, tag
    # characters U+E0000-E007F, BOM, soft hyphen...) and every control
    # character except tab, line feed and carriage return.
    ranges: list[str] = []
    start = prev = -2
    for cp in _candidate_code_points():
        ch = chr(cp)
        cat = unicodedata.category(ch)
        if cat == "Cf" or (cat == "Cc" and ch not in "\t\n\r"):
            if cp == prev + 1:
                prev = cp
                continue
            if start >= 0:
                ranges.append(_range(start, prev))
            start = prev = cp
    if start >= 0:
        ranges.append(_range(start, prev))
    return re.compile(f"[{''.join(ranges)}{_EXTRA_INVISIBLE}]+")


def _candidate_code_points() -> range | list[int]:
    # Cf and Cc live in planes 0, 1 and 14 only (Unicode 15).
    return [*range(0x0, 0x20000), *range(0xE0000, 0xE1000)]


def _range(a: int, b: int) -> str:
    return re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"


def hidden_characters(text: str) -> list[str]:
    """The invisible, direction-changing and control characters in `text` (tab and line
    breaks included: a name never holds them), as `U+202E` labels."""
    found = {c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")}
    if not (text.isascii() and text.isprintable()):
        found |= set("".join(_invisible_re().findall(text)))
    return [f"U+{ord(c):04X}" for c in sorted(found)]


def make_visible(text: str) -> str:
    """The same characters `strip_invisible` removes, shown instead as `⟨U+202E⟩`, so a
    human approving a write sees that a name or a message holds them."""
    if text.isascii() and text.isprintable():
        return text
    return _invisible_re().sub(lambda m: "".join(f"⟨U+{ord(c):04X}⟩" for c in m[0]), text)


def strip_invisible(text: str) -> str:
    """Remove invisible and direction-changing characters from untrusted text
    (issue, PR and comment bodies): zero-width characters, bidi embeddings,
    overrides and isolates, tag characters, variation selectors, other format
    and control characters. Tabs and line breaks stay."""
    if text.isascii() and text.isprintable():
        return text
    return _invisible_re().sub("", text)
