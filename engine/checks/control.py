"""CONTROL_CHARS: a translation holding characters no text should (C0 and C1 controls other than newline and tab,
the noncharacters U+FFFE/U+FFFF, unpaired surrogates). They break XML (an EPUB export), terminals and most editors;
a model that sends them is broken, so the severity is ``error``."""

from __future__ import annotations

import re

from engine.checks.warning import Finding
from engine.counted import counted

CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ufffe\uffff\ud800-\udfff]")


def check_control_chars(translation: str) -> Finding | None:
    """CONTROL_CHARS: where the first such character is, and how many there are."""
    first = CONTROL.search(translation)
    if first is None:
        return None
    count = len(CONTROL.findall(translation))
    shown = first.group().encode("unicode_escape", "backslashreplace").decode("ascii")
    message = f"the translation holds {counted(count, 'control character')} (the first, {shown}, at {first.start()})"
    return Finding("CONTROL_CHARS", message, (first.start(), first.end()))
