"""Character-level diff of two versions of a translation (pure, no Textual).

Character granularity is what CJK text needs (there are no spaces to split words on). ``SequenceMatcher``
is quadratic in the worst case, so long texts are first aligned by sentence-like tokens and only the
replaced stretches are compared character by character.
"""

from __future__ import annotations

import re
from difflib import SequenceMatcher
from typing import Literal

Op = Literal["equal", "insert", "delete"]
Piece = tuple[Op, str]

_CHAR_LIMIT = 250_000  # len(a) * len(b) above which we align by tokens first
_TOKENS = re.compile(r"[^。！？!?.…\n、，,;；:： ]+[。！？!?.…\n、，,;；:： ]*|[。！？!?.…\n、，,;；:： ]+")


def _chars(old: str, new: str) -> list[Piece]:
    out: list[Piece] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag == "equal":
            out.append(("equal", old[i1:i2]))
            continue
        if i2 > i1:
            out.append(("delete", old[i1:i2]))
        if j2 > j1:
            out.append(("insert", new[j1:j2]))
    return out


def _merge(pieces: list[Piece]) -> list[Piece]:
    merged: list[Piece] = []
    for op, text in pieces:
        if not text:
            continue
        if merged and merged[-1][0] == op:
            merged[-1] = (op, merged[-1][1] + text)
        else:
            merged.append((op, text))
    return merged


def char_diff(old: str, new: str) -> list[Piece]:
    """The edit from ``old`` to ``new`` as ``(op, text)`` pieces; joining the non-insert pieces gives ``old``,
    the non-delete pieces give ``new``."""
    if old == new:
        return [("equal", old)] if old else []
    if len(old) * len(new) <= _CHAR_LIMIT:
        return _merge(_chars(old, new))
    a, b = _TOKENS.findall(old), _TOKENS.findall(new)
    out: list[Piece] = []
    for tag, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        out.extend(_pieces(tag, "".join(a[i1:i2]), "".join(b[j1:j2])))
    return _merge(out)


def _pieces(tag: str, left: str, right: str) -> list[Piece]:
    """One opcode of the word diff as pieces: a changed stretch short enough is diffed by character."""
    if tag == "equal":
        return [("equal", left)]
    if len(left) * len(right) <= _CHAR_LIMIT:
        return _chars(left, right)
    return [("delete", left), ("insert", right)]
