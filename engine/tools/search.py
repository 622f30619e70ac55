"""``find_paragraph_by_keywords``: OR keyword search in chapter order; never restricted by boundaries.

Matching is case-insensitive (``str.casefold``), on the source text or, with ``in_translation``, on the
selected translation. Empty paragraphs never match. The search stops once it has one match more than
``max_results`` (to say whether there are more), so it costs a scan only as far as the matches go.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from engine.context import ToolContext
from engine.tools.args import SearchArgs
from engine.tools.lookup import chapter_index
from engine.tools.results import ok, paragraph_item
from store.model import Paragraph


def _first_matches(
    candidates: Iterable[tuple[int, str | None]], needles: list[str], limit: int
) -> tuple[list[int], bool]:
    """The positions of the first ``limit`` texts holding a needle, and whether there are more."""
    found: list[int] = []
    for pos, text in candidates:
        if text is not None and any(n in text for n in needles):
            if len(found) == limit:
                return found, True
            found.append(pos)
    return found, False


def _folded_translations(paragraphs: Sequence[Paragraph], positions: Iterable[int]) -> Iterator[tuple[int, str | None]]:
    for pos in positions:
        text = paragraphs[pos].selected_text
        yield pos, None if text is None else text.casefold()


def find_paragraph_by_keywords(ctx: ToolContext, args: SearchArgs) -> dict[str, Any]:
    """Paragraphs containing any of the keywords, in chapter order, at most ``max_results``."""
    chapter = ctx.chapter
    index = chapter_index(chapter)
    needles = list(dict.fromkeys(k.strip().casefold() for k in args.keywords if k.strip()))
    paragraphs = chapter.paragraphs
    if args.in_translation:
        candidates: Iterable[tuple[int, str | None]] = _folded_translations(paragraphs, index.nonempty)
    else:
        folded = index.folded_sources()
        candidates = ((pos, folded[pos]) for pos in index.nonempty)
    found, more = _first_matches(candidates, needles, args.max_results)
    return ok(
        keywords=list(args.keywords),
        searched="translation" if args.in_translation else "source",
        paragraphs=[paragraph_item(paragraphs[p], p) for p in found],
        more_results=more,
    )
