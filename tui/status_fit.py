"""Fitting a status line into the terminal's width: parts in priority order, the lowest shortened or dropped first.

A status line is a list of :class:`Part` in the order of their priority (the first matters most). :func:`fit_lines`
keeps them in that order and, while they do not fit one line, takes the parts from the last (lowest priority)
up: each is replaced by its shorter wordings in turn, then dropped if it may be; the parts left out are then put
back, highest first, in the longest wording that fits the room the shortening made. When the parts that must stay
do not fit one line even at their shortest, it starts again from the full wordings on two lines. Widths are
terminal cells (a CJK title takes two a character). Pure: no Textual.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

from rich.cells import cell_len

SEPARATOR = " · "


@dataclass(frozen=True)
class Part:
    """One part of a status line: its wordings, longest first, and whether the line may leave it out."""

    forms: tuple[str, ...]
    droppable: bool = False

    @classmethod
    def of(cls, text: str, *shorter: str, droppable: bool = False) -> Part:
        """A part worded ``text``, or one of the ``shorter`` wordings (in order) when space runs out."""
        return cls(tuple(dict.fromkeys((text, *shorter))), droppable)


Shown = tuple[str | None, ...]  # the wording each part is shown with (None: left out)


def _states(parts: Sequence[Part]) -> Iterator[Shown]:
    """Every way the parts are shown, from all in full to the fewest words: the last part first."""
    shown: list[str | None] = [p.forms[0] for p in parts]
    yield tuple(shown)
    for at in range(len(parts) - 1, -1, -1):
        part = parts[at]
        for form in part.forms[1:]:
            shown[at] = form
            yield tuple(shown)
        if part.droppable:
            shown[at] = None
            yield tuple(shown)


def _flow(texts: Sequence[str], width: int, lines: int) -> list[str] | None:
    """``texts`` joined on at most ``lines`` lines of ``width`` cells (a part is never split), or None."""
    out: list[str] = []
    for text in texts:
        if out and cell_len(out[-1] + SEPARATOR + text) <= width:
            out[-1] += SEPARATOR + text
        elif cell_len(text) <= width and len(out) < lines:
            out.append(text)
        else:
            return None
    return out


def _squeezed(texts: Sequence[str], width: int, lines: int) -> list[str]:
    """``texts`` on ``lines`` lines come what may: the last line takes the rest (the widget cuts it)."""
    out: list[str] = []
    for text in texts:
        if out and (cell_len(out[-1] + SEPARATOR + text) <= width or len(out) == lines):
            out[-1] += SEPARATOR + text
        else:
            out.append(text)
    return out


def _filled(parts: Sequence[Part], shown: Shown, width: int, lines: int) -> list[str]:
    """The lines of ``shown`` with the parts it left out put back, highest priority first, each in the longest
    wording that still fits (the room the shortened parts made is not wasted)."""
    current = list(shown)
    for at, part in enumerate(parts):
        if current[at] is not None:
            continue
        for form in part.forms:
            current[at] = form
            if _flow([t for t in current if t is not None], width, lines) is not None:
                break
            current[at] = None
    return _flow([t for t in current if t is not None], width, lines) or [""]


def fit_lines(parts: Sequence[Part], width: int, *, max_lines: int = 2) -> list[str]:
    """The parts in order on one line of ``width`` cells if they fit there shortened, else on up to
    ``max_lines`` lines (see the module docstring); never an empty list."""
    last: Shown = ()
    for lines in range(1, max_lines + 1):
        for shown in _states(parts):
            if _flow([t for t in shown if t is not None], width, lines) is not None:
                return _filled(parts, shown, width, lines)
            last = shown
    return _squeezed([t for t in last if t is not None], width, max_lines) or [""]
