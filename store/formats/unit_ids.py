"""Paragraph IDs as XML NMTOKENs: XLIFF 2 requires ``unit id`` and ``file id`` to be one, and a chapter file may hold
any ID without whitespace. Anything outside ``[A-Za-z0-9._:-]`` is percent-encoded (UTF-8 bytes; ``p/3`` is
``p%2F3``), ``%`` included, so decoding is the exact inverse. Non-ASCII name characters are encoded too: which of
them count as name characters differs between XML editions and validators."""

from __future__ import annotations

import string
from urllib.parse import unquote

_KEPT = frozenset(string.ascii_letters + string.digits + "._:-")


def encode_id(paragraph_id: str) -> str:
    """``paragraph_id`` as an NMTOKEN (unchanged when it already is one of plain ASCII name characters)."""
    return "".join(c if c in _KEPT else _escaped(c) for c in paragraph_id)


def _escaped(char: str) -> str:
    return "".join(f"%{byte:02X}" for byte in char.encode("utf-8", "surrogatepass"))


def decode_id(token: str) -> str:
    """The paragraph ID ``token`` stands for; a token that is no valid encoding stays as it is (an unknown ID)."""
    if "%" not in token:
        return token
    try:
        return unquote(token, errors="strict")
    except UnicodeDecodeError:
        return token
