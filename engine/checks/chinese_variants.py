"""Which Han characters belong only to Traditional or only to Simplified Chinese, from CC-CEDICT.

The tables are zhon's ``zhon.cedict`` character lists (the data behind hanzidentifier): every character CC-CEDICT
writes in a traditional headword, and every one it writes in a simplified headword. A character in only one of
the two is specific to that script: 後, 裡, 這 are traditional only; 这, 们, 着 simplified only. Characters both
scripts write in some word (於 as a surname, 乾 in 乾隆, 著 in 著名) are in both lists, so a correct text never
trips over them.

Loaded once, on the first Chinese-target check (about 25 ms: zhon's strings, two set differences, two regex
classes), so runs and chapters in other languages never pay for it.
"""

from __future__ import annotations

import re
import threading
from re import Pattern

_guard = threading.Lock()
_patterns: tuple[Pattern[str], Pattern[str]] | None = None


def _character_class(chars: set[str]) -> Pattern[str]:
    return re.compile("[" + "".join(re.escape(c) for c in sorted(chars)) + "]")


def _load() -> tuple[Pattern[str], Pattern[str]]:
    global _patterns
    with _guard:
        if _patterns is None:
            from zhon import cedict  # the one deferred import: ~4 ms, only for Chinese targets

            traditional = set(cedict.traditional)
            simplified = set(cedict.simplified)
            _patterns = (_character_class(traditional - simplified), _character_class(simplified - traditional))
        return _patterns


def traditional_only() -> Pattern[str]:
    """A pattern matching one character that only Traditional Chinese writes."""
    return (_patterns or _load())[0]


def simplified_only() -> Pattern[str]:
    """A pattern matching one character that only Simplified Chinese writes."""
    return (_patterns or _load())[1]
