"""Streamed text kept valid: UTF-16 surrogate halves that arrive in separate ``\\uXXXX`` escapes are joined.

JavaScript gateways slice strings by UTF-16 units, so an emoji can arrive as ``\\ud83d`` in one delta and
``\\ude00`` in the next.
"""

from __future__ import annotations

import re

_SURROGATE = re.compile("[\ud800-\udfff]")


def fix_surrogates(text: str) -> str:
    """Join UTF-16 surrogate pairs that arrived as separate ``\\uXXXX`` escapes; replace lone halves with U+FFFD."""
    if text.isascii() or not _SURROGATE.search(text):  # isascii() is O(1): CPython knows it per string
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")


class TextStream:
    """Holds back a trailing high surrogate until its partner arrives, so deltas are always valid text."""

    def __init__(self) -> None:
        self._held = ""

    def push(self, text: str) -> str:
        """``text`` (after what was held back) as valid text, minus a trailing high surrogate kept for later."""
        text = self._held + text
        self._held = ""
        if text and "\ud800" <= text[-1] <= "\udbff":
            self._held, text = text[-1], text[:-1]
        return fix_surrogates(text)

    def flush(self) -> str:
        """End of the text: a high surrogate still held back becomes U+FFFD."""
        held, self._held = self._held, ""
        return fix_surrogates(held)
