"""Characters a human cannot see but a model reads: finding them, showing them, removing them."""

from __future__ import annotations

import functools
import re
import unicodedata

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
    if text.isascii() and text.isprintable():
        return []  # printable ASCII holds no control or format character
    found = {c for c in text if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp")}
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
