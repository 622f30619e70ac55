"""Where a line of text breaks to fit a width in terminal cells (pure: no Textual, no console).

Rules, in the order they decide:

- Lines are cut between grapheme clusters only (a base character keeps its combining marks, an emoji its
  ZWJ sequence), measured with Rich's cell widths, so a line never needs more cells than the width.
- Every character is kept: ``"".join(wrap(text, width)) == text``. A run of spaces where a line breaks stays
  at the end of that line and does not count towards its width (it "hangs"); a renderer may crop it.
- Latin text breaks after spaces; CJK text (every wide character, and half-width kana) breaks between any two
  characters, and between a CJK character and its neighbour whatever that is.
- Kinsoku: no line starts with closing punctuation, small kana or a prolonged sound mark (``NO_START``) and
  none ends with an opening bracket (``NO_END``). When the last character that fits would break that rule,
  the break moves back, pushing the previous character down with it, so no line ever grows past the width.
- When no allowed break fits (a word longer than the line), the line is cut inside the word, still keeping
  the kinsoku rules if it can; only when every place would break them (a run of closing marks longer than
  the line) does a line start with one.
"""

from __future__ import annotations

from itertools import pairwise
from typing import NamedTuple

from rich.cells import split_graphemes

NO_START = frozenset(
    "、。，．・：；？！ー」』）］｝〕〉》】〙〗〟’”"
    "ぁぃぅぇぉっゃゅょゎゕゖァィゥェォッャュョヮヵヶ々〻ゝゞヽヾ…‥"
    "｡｣､･ｧｨｩｪｫｬｭｮｯｰ"
    "),.:;!?]}"
)
"""Characters no line may start with."""

NO_END = frozenset("「『（［｛〔〈《【〘〖〝‘“｢([{")
"""Characters no line may end with."""


class _Unit(NamedTuple):
    """One grapheme cluster: where it is in the text, its cell width and its first character."""

    start: int
    end: int
    cells: int
    char: str


def _units(text: str) -> list[_Unit]:
    spans, _ = split_graphemes(text)
    return [_Unit(start, end, cells, text[start]) for start, end, cells in spans]


def _is_cjk(unit: _Unit) -> bool:
    return unit.cells == 2 or "\uff61" <= unit.char <= "\uff9f"


def _fit(units: list[_Unit], first: int, width: int) -> int:
    """The index of the unit that starts the line after the one starting at ``first``."""
    count = len(units)
    cells = pending = 0  # pending: spaces that count only if something visible follows them on the line
    limit = first
    while limit < count:
        unit = units[limit]
        if unit.char == " ":
            pending += unit.cells
        elif limit > first and cells + pending + unit.cells > width:
            break
        else:
            cells += pending + unit.cells
            pending = 0
        limit += 1
    if limit == count:
        return count
    inside_word: int | None = None  # kinsoku holds, but the break splits a word
    against_kinsoku: int | None = None  # a break point, but the next line would start (or this one end) badly
    for brk in range(limit, first, -1):
        before, after = units[brk - 1], units[brk]
        if after.char == " ":
            continue
        shown = brk - 1  # the line's last visible unit: an opening bracket before hanging spaces still ends it
        while shown > first and units[shown].char == " ":
            shown -= 1
        allowed = after.char not in NO_START and units[shown].char not in NO_END
        opportunity = before.char == " " or _is_cjk(before) or _is_cjk(after)
        if allowed and opportunity:
            return brk
        if allowed and inside_word is None:
            inside_word = brk
        if opportunity and against_kinsoku is None:
            against_kinsoku = brk
    if inside_word is not None:
        return inside_word
    if against_kinsoku is not None:
        return against_kinsoku
    return limit


def line_breaks(text: str, width: int) -> list[int]:
    """The offsets in ``text`` (one line, no newline) where each line after the first starts, when it is
    wrapped to ``width`` cells (at least 2, the widest character); ``[]`` when it fits on one line."""
    if width < 2:
        raise ValueError(f"width must be at least 2 cells, not {width}")
    units = _units(text)
    breaks: list[int] = []
    first = 0
    while first < len(units):
        first = _fit(units, first, width)
        if first < len(units):
            breaks.append(units[first].start)
    return breaks


def wrap(text: str, width: int) -> list[str]:
    """``text`` (one line, no newline) cut into lines of at most ``width`` cells, not counting the spaces a
    line ends with; joined, they give ``text`` back. An empty text is one empty line."""
    bounds = [0, *line_breaks(text, width), len(text)]
    return [text[start:end] for start, end in pairwise(bounds)]
