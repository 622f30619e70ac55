"""The diff of two versions of a translation, one rule for every script (pure, no Textual, no Rich).

Texts are cut into tokens: a word of a script that separates words with spaces (Latin, Cyrillic, Greek, Hangul,
digits...) is one token; each character of a script written without spaces (Han, kana, Thai, Lao, Khmer,
Myanmar...) is a token of its own; a run of whitespace is one token; any other character (punctuation, symbols) is
one token. ``difflib.SequenceMatcher`` aligns the tokens, so English is diffed word by word, Japanese and Chinese
character by character, and a mixed text each part by its own rule.

``SequenceMatcher`` is quadratic in the worst case, so when the token counts multiply past ``_TOKEN_LIMIT`` the
texts are first aligned by sentence-like pieces and only the replaced stretches are diffed token by token.

**Rewritten.** A diff is ``rewritten`` when more than half of the text changed: when the characters the two
versions keep in common (the equal pieces, whitespace not counted) are less than half of the longer version's
characters (whitespace not counted either). Exactly half kept is not rewritten; two texts without any character
but whitespace are not; an empty old text against a non-empty new one is (nothing was kept).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import SequenceMatcher
from typing import Literal

Op = Literal["equal", "insert", "delete"]
Piece = tuple[Op, str]

_TOKEN_LIMIT = 250_000  # len(a) * len(b) in tokens above which texts are aligned by sentences first

# Scripts written without spaces between words: Thai, Lao, Tibetan, Myanmar, Khmer, kana, Bopomofo, Han (unified,
# extension A, compatibility, the supplementary planes), Yi, halfwidth katakana.
_UNSPACED = (
    "\u0e00-\u0fff\u1000-\u109f\u1780-\u17ff\u3040-\u30ff\u3100-\u312f\u31f0-\u31ff\u3400-\u4dbf"
    "\u4e00-\u9fff\ua000-\ua4cf\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"
)
_TOKENS = re.compile(
    f"[{_UNSPACED}]"  # one character of a script without spaces
    f"|(?:[^\\W{_UNSPACED}]|[\u0300-\u036f])+"  # a word (with any combining accents)
    r"|\s+"  # whitespace
    r"|.",  # one punctuation mark or symbol
    re.DOTALL,
)
_SENTENCES = re.compile(r"[^。！？!?.…\n、，,;；:： ]+[。！？!?.…\n、，,;；:： ]*|[。！？!?.…\n、，,;；:： ]+")


def tokens(text: str) -> list[str]:
    """``text`` cut into the tokens the diff aligns (joined, they give ``text`` back)."""
    return _TOKENS.findall(text)


@dataclass(frozen=True)
class TextDiff:
    """The edit from one text to another: ``pieces`` (joining the non-insert ones gives the old text, the
    non-delete ones the new text), the characters both keep (``kept``) and the longer text's (``longer``),
    whitespace not counted."""

    pieces: tuple[Piece, ...]
    kept: int
    longer: int

    @property
    def rewritten(self) -> bool:
        """More than half of the text changed (see the module docstring)."""
        return 2 * self.kept < self.longer


def _size(text: str) -> int:
    return len(text) - sum(ch.isspace() for ch in text)


def text_diff(old: str, new: str) -> TextDiff:
    """The diff from ``old`` to ``new`` under the one rule of this module."""
    pieces = tuple(_merge(_diff(old, new)))
    kept = sum(_size(text) for op, text in pieces if op == "equal")
    return TextDiff(pieces, kept, max(_size(old), _size(new)))


def _diff(old: str, new: str) -> list[Piece]:
    if old == new:
        return [("equal", old)]
    a, b = tokens(old), tokens(new)
    if len(a) * len(b) <= _TOKEN_LIMIT:
        return _aligned(a, b)
    out: list[Piece] = []
    sa, sb = _SENTENCES.findall(old), _SENTENCES.findall(new)
    for tag, i1, i2, j1, j2 in _opcodes(sa, sb):
        left, right = "".join(sa[i1:i2]), "".join(sb[j1:j2])
        out.extend([("equal", left)] if tag == "equal" else _stretch(left, right))
    return out


def _stretch(left: str, right: str) -> list[Piece]:
    """A replaced stretch of sentences: diffed token by token when short enough, else replaced whole."""
    a, b = tokens(left), tokens(right)
    if len(a) * len(b) <= _TOKEN_LIMIT:
        return _aligned(a, b)
    return [("delete", left), ("insert", right)]


def _aligned(a: list[str], b: list[str]) -> list[Piece]:
    out: list[Piece] = []
    for tag, i1, i2, j1, j2 in _opcodes(a, b):
        if tag == "equal":
            out.append(("equal", "".join(a[i1:i2])))
            continue
        out.append(("delete", "".join(a[i1:i2])))
        out.append(("insert", "".join(b[j1:j2])))
    return out


Opcode = tuple[str, int, int, int, int]


def _opcodes(a: list[str], b: list[str]) -> list[Opcode]:
    """``SequenceMatcher``'s opcodes, the common head and tail taken first: in repetitive text the longest match
    can be found far from where a person sees the texts agree (``w w w`` + ``X w w w`` would match the second
    half to the first), while the head and tail are where they do."""
    head, tail = _common_ends(a, b)
    ops: list[Opcode] = [("equal", 0, head, 0, head)] if head else []
    matcher = SequenceMatcher(None, a[head : len(a) - tail], b[head : len(b) - tail], autojunk=False)
    ops.extend((tag, i1 + head, i2 + head, j1 + head, j2 + head) for tag, i1, i2, j1, j2 in matcher.get_opcodes())
    if tail:
        ops.append(("equal", len(a) - tail, len(a), len(b) - tail, len(b)))
    return ops


def _common_ends(a: list[str], b: list[str]) -> tuple[int, int]:
    """How many items ``a`` and ``b`` share at their start, and then at their end (not overlapping)."""
    limit = min(len(a), len(b))
    head = 0
    while head < limit and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < limit - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    return head, tail


def _merge(pieces: list[Piece]) -> list[Piece]:
    """Empty pieces dropped; whitespace alone between two changes counted as changed (``The big cat`` → ``A small
    dog`` reads as one replacement, not three); each run of changes as one delete and one insert."""
    kept = [piece for piece in pieces if piece[1]]
    merged: list[Piece] = []
    run: list[Piece] = []  # the changes since the last equal piece
    for at, piece in enumerate(kept):
        if piece[0] == "equal" and not _between_changes(kept, at):
            merged.extend(_one_change(run))
            run.clear()
            _append_equal(merged, piece[1])
        else:
            run.append(piece)
    merged.extend(_one_change(run))
    return merged


def _between_changes(pieces: list[Piece], at: int) -> bool:
    """The equal piece at ``at`` is whitespace alone, with a change on either side."""
    return (
        pieces[at][1].isspace()
        and 0 < at < len(pieces) - 1
        and pieces[at - 1][0] != "equal"
        and pieces[at + 1][0] != "equal"
    )


def _one_change(run: list[Piece]) -> list[Piece]:
    """A run of changes (and the whitespace between them) as its delete and its insert."""
    old = "".join(text for op, text in run if op != "insert")
    new = "".join(text for op, text in run if op != "delete")
    out: list[Piece] = []
    if old:
        out.append(("delete", old))
    if new:
        out.append(("insert", new))
    return out


def _append_equal(merged: list[Piece], text: str) -> None:
    if merged and merged[-1][0] == "equal":
        merged[-1] = ("equal", merged[-1][1] + text)
    else:
        merged.append(("equal", text))
