"""Inline codes in a paragraph's text, read as text (no XML here: the QA check imports this without lxml).

A book's inline markup reaches the model as numbered codes: ``⟦n⟧…⟦/n⟧`` around an element whose words are
translated, ``⟦n/⟧`` for one that has none (an image, an empty anchor, a page break, math, svg, a note mark).
A bracket the book itself holds is written twice: ``⟦⟦`` is a literal ``⟦`` and ``⟧⟧`` a literal ``⟧``, so
``escape``/``unescape`` round-trip any text exactly. Reading is lenient: a lone bracket that makes no code or
escape is a literal bracket.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

OPEN = "\u27e6"  # ⟦
CLOSE = "\u27e7"  # ⟧
Kind = Literal["open", "close", "alone"]
_TOKEN = re.compile(f"({OPEN}{OPEN}|{CLOSE}{CLOSE})|{OPEN}(/?)([1-9][0-9]{{0,5}})(/?){CLOSE}")


class Code(NamedTuple):
    """One code as written in a text: its number, kind and where it stands (character offsets). A tuple: a long
    book's export reads hundreds of thousands."""

    number: int
    kind: Kind
    start: int
    end: int

    def written(self) -> str:
        """The code as it appears in a text."""
        return written(self.number, self.kind)


def written(number: int, kind: Kind) -> str:
    """``⟦n⟧``, ``⟦/n⟧`` or ``⟦n/⟧``."""
    if kind == "open":
        return f"{OPEN}{number}{CLOSE}"
    if kind == "close":
        return f"{OPEN}/{number}{CLOSE}"
    return f"{OPEN}{number}/{CLOSE}"


def escape(text: str) -> str:
    """The book's own text as it stands among codes: each bracket doubled."""
    if OPEN not in text and CLOSE not in text:
        return text
    return text.replace(OPEN, OPEN + OPEN).replace(CLOSE, CLOSE + CLOSE)


def _kind(match: re.Match[str]) -> Kind | None:
    slash_before, slash_after = match.group(2), match.group(4)
    if slash_before and slash_after:
        return None  # ``⟦/1/⟧`` is no code
    return "close" if slash_before else "alone" if slash_after else "open"


def pieces(text: str) -> list[str | Code]:
    """``text`` as literal runs (brackets unescaped) and codes, in order."""
    out: list[str | Code] = []
    run: list[str] = []
    last = 0
    for match in _TOKEN.finditer(text):
        run.append(text[last : match.start()])
        last = match.end()
        kind = None if match.group(1) else _kind(match)
        if kind is None:
            run.append(match.group(1)[0] if match.group(1) else match.group())
            continue
        _flush(run, out)
        out.append(Code(int(match.group(3)), kind, match.start(), match.end()))
    run.append(text[last:])
    _flush(run, out)
    return out


def _flush(run: list[str], out: list[str | Code]) -> None:
    joined = "".join(run)
    run.clear()
    if joined:
        out.append(joined)


def codes(text: str) -> list[Code]:
    """The codes written in ``text``, in order (none when it holds no ``⟦``)."""
    if OPEN not in text:
        return []
    return [p for p in pieces(text) if isinstance(p, Code)]


def unescape(text: str) -> str:
    """The words of ``text``: literal brackets back to one, codes left out."""
    if OPEN not in text and CLOSE not in text:
        return text
    return "".join(p for p in pieces(text) if isinstance(p, str))


def masked(text: str) -> str:
    """``text`` with each code's number written ``#`` (same length, so offsets still hold): the other checks read
    no number into a code (``⟦12/⟧`` is no 12 of the text)."""
    if OPEN not in text:
        return text
    chars = list(text)
    for code in codes(text):
        chars[code.start + 1 : code.end - 1] = _hashed(text[code.start + 1 : code.end - 1])
    return "".join(chars)


def _hashed(inner: str) -> list[str]:
    return ["#" if ch.isdigit() else ch for ch in inner]
