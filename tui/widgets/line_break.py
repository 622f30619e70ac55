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
    return [_Unit(start, end, cells, _rule_char(text, start, end)) for start, end, cells in spans]


def _rule_char(text: str, start: int, end: int) -> str:
    """The character the rules look at: the cluster's first, unless that is a space with more after it (a space
    that carries a control character or a mark is not a space that can hang at the end of a line)."""
    first = text[start]
    if first != " " or end - start == 1:
        return first
    rest = text[start:end].lstrip(" ")
    return rest[0] if rest else first


def _is_cjk(unit: _Unit) -> bool:
    return unit.cells == 2 or "\uff61" <= unit.char <= "\uff9f"


def _limit(units: list[_Unit], first: int, width: int) -> int:
    """The index of the first unit that does not fit on the line starting at ``first`` (``len(units)``: all fit).

    Spaces count only once something visible follows them on the line: a run of them may hang past the width.
    """
    cells = pending = 0
    limit = first
    while limit < len(units):
        unit = units[limit]
        if unit.char == " ":
            pending += unit.cells
        elif limit > first and cells + pending + unit.cells > width:
            break
        else:
            cells += pending + unit.cells
            pending = 0
        limit += 1
    return limit


def _last_shown(units: list[_Unit], first: int, brk: int) -> _Unit:
    """The last visible unit of a line from ``first`` that would end before ``brk`` (spaces hang after it)."""
    shown = brk - 1
    while shown > first and units[shown].char == " ":
        shown -= 1
    return units[shown]


# What a break before a unit would be: (kinsoku allows it, it is a break opportunity) -> kind.
_KINDS = {
    (True, True): "good",
    (True, False): "inside a word",  # kinsoku holds, but the break splits a word
    (False, True): "against kinsoku",  # the next line would start (or this one end) badly
    (False, False): "bad",
}


def _kind(units: list[_Unit], first: int, brk: int) -> str:
    """What breaking the line that starts at ``first`` before unit ``brk`` would be (see ``_KINDS``)."""
    before, after = units[brk - 1], units[brk]
    if after.char == " ":
        return "space"  # spaces hang at the end of a line: never before one
    allowed = after.char not in NO_START and _last_shown(units, first, brk).char not in NO_END
    opportunity = before.char == " " or _is_cjk(before) or _is_cjk(after)
    return _KINDS[allowed, opportunity]


def _fit(units: list[_Unit], first: int, width: int) -> int:
    """The index of the unit that starts the line after the one starting at ``first``: the last good break
    that fits, else the last one inside a word, else the last one against kinsoku, else the width's cut."""
    limit = _limit(units, first, width)
    if limit == len(units):
        return limit
    seen: dict[str, int] = {}
    for brk in range(limit, first, -1):
        kind = _kind(units, first, brk)
        if kind == "good":
            return brk
        seen.setdefault(kind, brk)
    return seen.get("inside a word", seen.get("against kinsoku", limit))


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
