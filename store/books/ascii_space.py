"""ASCII whitespace in text read from a book (titles, loose text): runs collapsed to one space, the ends trimmed.

Only ASCII whitespace is markup's indentation; U+3000 (ideographic space), U+00A0 and the other Unicode spaces
are text and stay exactly (``str.split()`` would turn a title's U+3000 into an ASCII space).
"""

from __future__ import annotations

import re

_ASCII_SPACE = " \t\n\r\f"
_RUN = re.compile(f"[{_ASCII_SPACE}]+")


def collapse_ascii_space(text: str) -> str:
    """``text`` with each run of ASCII whitespace one space, and none at either end."""
    return _RUN.sub(" ", text).strip(_ASCII_SPACE)
