"""Decoding imported text: a BOM, else strict UTF-8, else the encoding charset-normalizer finds among the
ones novels come in (Shift_JIS/CP932, EUC-JP, GB18030, Big5); ``--encoding`` overrides detection."""

from __future__ import annotations

import codecs
from pathlib import Path

from store.errors import StoreError

# The order is a tie-break: charset-normalizer's best guess among these only (a free guess may pick a
# Cyrillic code page for short Japanese text).
CANDIDATES = ["utf_8", "cp932", "euc_jp", "gb18030", "big5", "utf_16"]
_BOMS = [
    (codecs.BOM_UTF32_LE, "utf-32"),
    (codecs.BOM_UTF32_BE, "utf-32"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16"),
    (codecs.BOM_UTF16_BE, "utf-16"),
]


# Codecs Python calls text encodings that are no character set: they turn escapes, domain names or a mapping
# table into text, and would import a novel as something else without an error (unicode_escape, punycode).
_NOT_CHARSETS = frozenset({"punycode", "idna", "unicode_escape", "raw_unicode_escape", "undefined", "charmap"})


class TextDecodeError(StoreError):
    """A text file that cannot be decoded: names the file, the encoding and the byte offset."""


def check_encoding(name: str) -> str:
    """The codec name of ``name`` if it is a character set text can be written in; else :class:`TextDecodeError`."""
    try:
        info = codecs.lookup(name)
    except LookupError:
        raise TextDecodeError(f"unknown encoding {name!r}") from None
    if not info._is_text_encoding or info.name.replace("-", "_") in _NOT_CHARSETS:
        raise TextDecodeError(
            f"{name!r} is not a text encoding (name one such as utf-8, cp932, euc_jp, gb18030 or big5)"
        )
    return info.name


def _strict(raw: bytes, encoding: str, path: Path) -> str:
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as exc:
        raise TextDecodeError(
            f"{path}: not valid {encoding} text (byte 0x{raw[exc.start]:02x} at offset {exc.start})"
        ) from None
    except UnicodeError as exc:  # a codec's own complaint without an offset
        raise TextDecodeError(f"{path}: not valid {encoding} text ({exc})") from None


def decode_text(raw: bytes, path: Path, encoding: str | None = None) -> tuple[str, str]:
    """``(text, encoding used)``; a BOM is removed. Raise :class:`TextDecodeError` naming the byte offset, or an
    ``encoding`` that is unknown or no character set (see :func:`check_encoding`)."""
    if encoding:
        try:
            check_encoding(encoding)
        except TextDecodeError as exc:
            raise TextDecodeError(f"{path}: {exc}") from None
        text = _strict(raw, encoding, path)
        return text.removeprefix("\ufeff"), encoding
    for bom, name in _BOMS:
        if raw.startswith(bom):
            return _strict(raw, name, path).removeprefix("\ufeff"), name
    try:
        return raw.decode("utf-8"), "utf-8"
    except UnicodeDecodeError as exc:
        utf8_error = exc
    from charset_normalizer import from_bytes  # ~30 ms import: only for files that are not UTF-8

    best = from_bytes(raw, cp_isolation=CANDIDATES).best()
    if best is None:
        raise TextDecodeError(
            f"{path}: not UTF-8 (byte 0x{raw[utf8_error.start]:02x} at offset {utf8_error.start})"
            f" nor Shift_JIS, EUC-JP, GB18030 or Big5; name it with --encoding"
        ) from None
    return _strict(raw, best.encoding, path), best.encoding
