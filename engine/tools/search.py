"""``find_paragraph_by_keywords``: OR keyword search in chapter order; never restricted by boundaries.

Matching is case-insensitive (``str.casefold``), on the source text or, with ``in_translation``, on the
selected translation. Empty paragraphs never match. The search stops once it has one match more than
``max_results`` (to say whether there are more), so it costs a scan only as far as the matches go.
"""

from __future__ import annotations

from typing import Any

from engine.context import ToolContext
from engine.tools.args import SearchArgs
from engine.tools.lookup import chapter_index
from engine.tools.results import ok, paragraph_item


def find_paragraph_by_keywords(ctx: ToolContext, args: SearchArgs) -> dict[str, Any]:
    """Paragraphs containing any of the keywords, in chapter order, at most ``max_results``."""
    chapter = ctx.chapter
    index = chapter_index(ctx.chapter)
    needles = list(dict.fromkeys(k.strip().casefold() for k in args.keywords if k.strip()))
    paragraphs = chapter.paragraphs
    found: list[int] = []
    more = False
    if args.in_translation:
        for pos in index.nonempty:
            text = paragraphs[pos].selected_text
            if text is not None and any(n in text.casefold() for n in needles):
                if len(found) == args.max_results:
                    more = True
                    break
                found.append(pos)
    else:
        folded = index.folded_sources()
        for pos in index.nonempty:
            text = folded[pos]
            if any(n in text for n in needles):
                if len(found) == args.max_results:
                    more = True
                    break
                found.append(pos)
    return ok(
        keywords=list(args.keywords),
        searched="translation" if args.in_translation else "source",
        paragraphs=[paragraph_item(paragraphs[p], p) for p in found],
        more_results=more,
    )
