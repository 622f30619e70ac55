"""argparse types for arguments that become text in a file (titles, ids, languages, glossary terms) or steer how
text is read (encodings, patterns): each refuses a bad value as one line, exit 2, before anything is read or written.

A byte that is not UTF-8 in an argument reaches Python as a lone surrogate (U+DC80–U+DCFF, surrogateescape); it
cannot be written to a UTF-8 file, so it is refused here rather than failing at the write with a traceback.
File names are not checked: a file whose name is not UTF-8 can still be read and written.
"""

from __future__ import annotations

import argparse
import re

from store.errors import StoreError
from store.language_tag import is_language_tag
from store.text_encoding import check_encoding

_SURROGATE = re.compile("[\ud800-\udfff]")


def text_arg(value: str) -> str:
    """``value`` if it is text that can be written as UTF-8."""
    if _SURROGATE.search(value):
        raise argparse.ArgumentTypeError(f"{value!r} is not valid UTF-8 text (\\udcXX stands for a byte that is not)")
    return value


def language_arg(value: str) -> str:
    """``value`` if it is a well-formed BCP 47 language tag."""
    if not is_language_tag(text_arg(value)):
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a well-formed BCP 47 language tag (such as en, ja, zh-Hans or pt-BR)"
        )
    return value


def encoding_arg(value: str) -> str:
    """``value`` if it names a character set text can be written in (not ``punycode`` or ``unicode_escape``)."""
    try:
        check_encoding(text_arg(value))
    except StoreError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return value


def pattern_arg(value: str) -> re.Pattern[str]:
    """``value`` compiled as a regular expression."""
    try:
        return re.compile(text_arg(value))
    except re.error as exc:
        raise argparse.ArgumentTypeError(f"{value!r} is not a valid regular expression: {exc}") from None


def count_arg(value: str) -> int:
    """``value`` as a whole number from 1 up."""
    try:
        count = int(value)
    except ValueError:
        count = 0
    if count < 1:
        raise argparse.ArgumentTypeError(f"{value!r} is not a whole number from 1 up")
    return count
