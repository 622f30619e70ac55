"""Finding text in a chapter: every paragraph that matches, "k of n", stepping between matches.

A query searches the source and the selected translation; ``src:`` or ``tr:`` in front limits it to one of
them. Matching ignores case. The matches are found again whenever the chapter changes (a new object).
"""

from __future__ import annotations

import bisect
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from store.model import Chapter, Paragraph

Scope = Literal["both", "source", "translation"]
_PREFIXES: dict[str, Scope] = {"src:": "source", "tr:": "translation"}


def _source(para: Paragraph) -> tuple[str, ...]:
    return (para.text,)


def _translation(para: Paragraph) -> tuple[str, ...]:
    return (para.selected_text or "",)


def _both(para: Paragraph) -> tuple[str, ...]:
    return (para.text, para.selected_text or "")


_SEARCHED: dict[Scope, Callable[[Paragraph], tuple[str, ...]]] = {
    "both": _both,
    "source": _source,
    "translation": _translation,
}
SCOPE_WORDS: dict[Scope, str] = {"both": "source and translation", "source": "source", "translation": "translation"}


@dataclass
class Search:
    """One query and where it matches in the chapter shown."""

    needle: str  # what is looked for, as typed (without the scope prefix)
    scope: Scope = "both"
    _for: weakref.ref[Chapter] | None = field(default=None, repr=False)  # the chapter the matches were found in
    _matches: list[int] = field(default_factory=list, repr=False)

    @classmethod
    def parse(cls, query: str) -> Search | None:
        """The search a typed query asks for (None for an empty one)."""
        text = query.strip()
        scope: Scope = "both"
        for prefix, named in _PREFIXES.items():
            if text.casefold().startswith(prefix):
                text, scope = text[len(prefix) :].strip(), named
                break
        return cls(text, scope) if text else None

    def matches(self, chapter: Chapter) -> list[int]:
        """The 0-based positions of the paragraphs that match, in chapter order."""
        if self._for is None or self._for() is not chapter:
            folded, texts = self.needle.casefold(), _SEARCHED[self.scope]
            self._matches = [
                pos for pos, para in enumerate(chapter.paragraphs) if any(folded in t.casefold() for t in texts(para))
            ]
            self._for = weakref.ref(chapter)
        return self._matches

    def step(self, chapter: Chapter, cursor: int, direction: int) -> int | None:
        """The next (``direction`` 1) or previous (-1) match from ``cursor``, wrapping; None when none."""
        found = self.matches(chapter)
        if not found:
            return None
        if direction > 0:
            at = bisect.bisect_right(found, cursor)
            return found[at % len(found)]
        at = bisect.bisect_left(found, cursor) - 1
        return found[at % len(found)]

    def rank(self, chapter: Chapter, cursor: int) -> tuple[int, int]:
        """(k, n): the cursor is on the k-th of n matches (k 0 when it is on none)."""
        found = self.matches(chapter)
        at = bisect.bisect_left(found, cursor)
        k = at + 1 if at < len(found) and found[at] == cursor else 0
        return k, len(found)

    def position(self, chapter: Chapter, cursor: int) -> str:
        """``3 of 12`` (the cursor on the third match), ``12 matches`` (on none of them) or ``no match``."""
        k, n = self.rank(chapter, cursor)
        if not n:
            return "no match"
        return f"{k} of {n}" if k else f"{n} matches"

    def describe(self, chapter: Chapter, cursor: int) -> str:
        """``search 'gate' (source): 3 of 12`` for the status line."""
        where = "" if self.scope == "both" else f" ({self.scope})"
        return f"search {self.needle!r}{where}: {self.position(chapter, cursor)}"
