"""Text from a chapter, a model or a server made safe to show on a terminal (pure, no Textual, no Rich).

A terminal acts on control characters: ESC starts sequences that set the window title, write the clipboard
(OSC 52) or clear the screen, C1 characters such as U+009B (CSI) do the same on terminals that honour them,
and bidi overrides reorder what is shown. :func:`visible` turns every such character into a visible
Python-style escape (``\\x1b``, ``\\x9b``, ``\\u202e``) for human output; :func:`json_text` is
``json.dumps`` whose output carries none of them raw either (still valid JSON, CJK still readable).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

# C0 and DEL, C1, the bidi embeddings/overrides (U+202A–U+202E) and isolates (U+2066–U+2069), and lone surrogates:
# a file name or argument that is not UTF-8 reaches Python as U+DC80–U+DCFF, which no UTF-8 stream can write.
_BIDI = "\u202a-\u202e\u2066-\u2069"
_SURROGATES = "\ud800-\udfff"
_UNSAFE_KEEP_LINES = re.compile(f"[\x00-\x08\x0b-\x1f\x7f-\x9f{_BIDI}{_SURROGATES}]")
_UNSAFE_ALL = re.compile(f"[\x00-\x1f\x7f-\x9f{_BIDI}{_SURROGATES}]")

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def _escaped(match: re.Match[str]) -> str:
    """A visible escape of the matched character (a function, not a translate table: a table of every lone
    surrogate cost ~0.5 MB of every process that prints)."""
    char = match.group()
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


# Characters json.dumps(ensure_ascii=False) leaves raw although a terminal (or a JavaScript reader, for
# U+2028/U+2029) acts on them. They only ever occur inside JSON strings, so \uXXXX keeps the JSON valid.
_JSON_RAW = re.compile(f"[\x7f-\x9f{_BIDI}\u2028\u2029]")


def visible(text: str, *, newlines: bool = True) -> str:
    """``text`` with every control character a terminal would act on replaced by a visible escape.

    C0 controls except ``\\n`` and ``\\t`` (those too when ``newlines`` is False: a one-line place), DEL,
    C1 controls (U+0080–U+009F), the bidi embedding, override and isolate controls and lone surrogates (a
    non-UTF-8 byte of a file name) become ``\\x1b``, ``\\x9b``, ``\\u202e``, ``\\udcff``, ``\\n`` ...;
    everything else, backslashes included, is left alone. Text without any of them is returned as it is (one
    regex search: this runs for every log line and table cell).
    """
    unsafe = _UNSAFE_KEEP_LINES if newlines else _UNSAFE_ALL
    if unsafe.search(text) is None:
        return text
    return unsafe.sub(_escaped, text)


# One symbol per character, for editing widgets where every character must keep one cell: the C0 control
# pictures (U+2400–U+241F), DEL's (U+2421), and U+FFFD for C1 and bidi controls and surrogates, which have none.
def _picture(match: re.Match[str]) -> str:
    code = ord(match.group())
    return "\u2421" if code == 0x7F else chr(0x2400 + code) if code < 0x20 else "\ufffd"


def control_pictures(text: str) -> str:
    """``text`` with each control character :func:`visible` escapes (newlines and tabs too) replaced by one
    visible symbol (``␛`` for ESC), for widgets that edit the text and so need one cell per character.
    Text without any is returned as it is."""
    if _UNSAFE_ALL.search(text) is None:
        return text
    return _UNSAFE_ALL.sub(_picture, text)


def _json_escape(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def json_text(value: Any, *, indent: int | None = None, default: Callable[[Any], Any] | None = None) -> str:
    """``json.dumps(value, ensure_ascii=False)`` with DEL, C1 controls, bidi controls and U+2028/U+2029
    written as ``\\uXXXX`` escapes (the encoder already escapes C0): safe on a terminal, the same value
    for any JSON reader, and CJK text stays readable."""
    import json  # not at import time: most commands never print JSON

    dumped = json.dumps(value, ensure_ascii=False, indent=indent, default=default)
    if _JSON_RAW.search(dumped) is None:
        return dumped
    return _JSON_RAW.sub(_json_escape, dumped)
