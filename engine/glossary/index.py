"""Which glossary entries a text mentions, in order of first mention: one Aho–Corasick pass over the text.

Every source and alias of every entry is a pattern of one automaton (``ahocorasick-rs``: a 10,000-entry glossary
builds in ~20 ms and selects the entries of a 4,000-character chunk in ~0.1 ms), matched overlapping, so
``老婆さん`` finds both ``老婆`` and ``老婆さん``. Latin letters match case-insensitively (text and patterns are
lower-cased where that keeps every offset). Patterns are plain text: regex metacharacters mean themselves.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from store.glossary import GlossaryEntry

if TYPE_CHECKING:
    from ahocorasick_rs import AhoCorasick


def fold(text: str) -> str:
    """``text`` lower-cased where that keeps its length (it does for all but a few letters such as İ)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


def _automaton(patterns: list[str]) -> AhoCorasick | None:
    """One automaton of ``patterns``; None for none. Imported here: a run without glossary terms never needs it
    (~0.5 MB of every process)."""
    if not patterns:
        return None
    from ahocorasick_rs import AhoCorasick

    return AhoCorasick(patterns)


class GlossaryIndex:
    """The entries of a glossary, ready to be found in texts."""

    def __init__(self, entries: Sequence[GlossaryEntry]) -> None:
        self.entries = tuple(entries)
        patterns: list[str] = []
        self._owner: list[int] = []
        for number, entry in enumerate(self.entries):
            for term in {fold(t.strip()) for t in (entry.source, *entry.aliases)}:
                if term:
                    patterns.append(term)
                    self._owner.append(number)
        self._automaton = _automaton(patterns)

    def occurring(self, text: str) -> list[GlossaryEntry]:
        """The entries whose source or an alias occurs in ``text``, ordered by first occurrence (a longer term
        first when two start at the same place)."""
        if self._automaton is None or not text:
            return []
        first: dict[int, tuple[int, int]] = {}
        for pattern, start, end in self._automaton.find_matches_as_indexes(fold(text), overlapping=True):
            owner = self._owner[pattern]
            key = (start, start - end)
            if owner not in first or key < first[owner]:
                first[owner] = key
        return [self.entries[n] for n in sorted(first, key=first.__getitem__)]


def glossary_section(entries: Sequence[GlossaryEntry]) -> str:
    """The lines the chunk message ends with: a ``Glossary`` heading, then one entry per line (empty: none)."""
    if not entries:
        return ""
    return "Glossary\n" + "\n".join(entry.line() for entry in entries)
