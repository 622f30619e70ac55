"""The approved glossary terms as the checks use them, and where their sources and targets occur in a text.

``GlossaryTerms`` is an immutable tuple of ``GlossaryTerm`` that builds, once and on first use, two Aho–Corasick
automata: one of every source and alias (which terms a paragraph's source mentions), one of the targets and target
aliases that hold a wide character (kana, Han, hangul: where a script check must not count what it finds; a target
in Latin letters can hold no such run, and a glossary of them builds an empty automaton). A lookup costs one pass
over the text however many terms there are (a check of 100,000 terms looked at every term for every paragraph:
~60 ms a paragraph). The glossary snapshot makes its terms once per version of the file and builds them in the
thread that parsed it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from functools import cached_property
from typing import TYPE_CHECKING

from msgspec import Struct

from engine.checks.warning import Span

if TYPE_CHECKING:
    from ahocorasick_rs import AhoCorasick


class GlossaryTerm(Struct, frozen=True):
    """An approved glossary entry: the source term, the target to use, other source spellings (``aliases``) and
    other accepted renderings (``target_aliases``: an irregular plural, a variant the editor allows)."""

    source: str
    target: str
    aliases: tuple[str, ...] = ()
    target_aliases: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The source and its aliases, trimmed, the empty ones left out."""
        return tuple(n for n in (name.strip() for name in (self.source, *self.aliases)) if n)

    @property
    def targets(self) -> tuple[str, ...]:
        """The target and the target aliases, trimmed, the empty ones left out."""
        return tuple(t for t in (text.strip() for text in (self.target, *self.target_aliases)) if t)


# A character from U+1100 on, but for general punctuation, symbols and arrows (as in ``paragraph._WIDE``): what
# every run the script checks look for is made of.
_WIDE = re.compile("[^\x00-\u10ff\u2000-\u2bff]")


def fold(text: str) -> str:
    """``text`` lower-cased where that keeps every offset (it does for all but a few letters such as İ)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


class _Patterns:
    """Texts to find, each owned by one or more terms (by position), as one automaton."""

    def __init__(self, owned: Iterable[tuple[str, int]]) -> None:
        owners: dict[str, list[int]] = {}
        for pattern, owner in owned:
            if pattern:
                owners.setdefault(pattern, []).append(owner)
        self._owners = list(owners.values())
        self._automaton: AhoCorasick | None = None
        if owners:  # imported only here: a glossary without terms never needs it (~0.5 MB of every process)
            from ahocorasick_rs import AhoCorasick

            self._automaton = AhoCorasick(list(owners))

    def owners_in(self, text: str) -> set[int]:
        """The positions of the terms with a pattern in ``text``."""
        if self._automaton is None or not text:
            return set()
        return {
            o for p, _, _ in self._automaton.find_matches_as_indexes(text, overlapping=True) for o in self._owners[p]
        }

    def spans_in(self, text: str) -> list[Span]:
        """Every place in ``text`` where a pattern occurs."""
        if self._automaton is None or not text:
            return []
        return [(start, end) for _, start, end in self._automaton.find_matches_as_indexes(text, overlapping=True)]


class GlossaryTerms(tuple[GlossaryTerm, ...]):
    """Approved terms, found in texts through automata built on first use (then kept with the terms)."""

    @cached_property
    def _sources(self) -> _Patterns:
        # Sources match case-insensitively (Latin letters): the text and the patterns lower-cased.
        return _Patterns((name.lower(), n) for n, term in enumerate(self) for name in term.names)

    @cached_property
    def _targets(self) -> _Patterns:
        wide = ((target, n) for n, term in enumerate(self) for target in term.targets if _WIDE.search(target))
        return _Patterns((fold(target), n) for target, n in wide)

    def mentioned(self, text: str) -> list[GlossaryTerm]:
        """The terms whose source or an alias occurs in ``text``, in glossary order."""
        return [self[n] for n in sorted(self._sources.owners_in(text.lower()))] if self else []

    def target_spans(self, translation: str) -> list[Span]:
        """Every place in ``translation`` where a target or target alias with a wide character (kana, Han, hangul)
        occurs, Latin letters in it case-insensitively: the only targets a script check's run can lie within."""
        return self._targets.spans_in(fold(translation)) if self else []

    def prepared(self) -> GlossaryTerms:
        """The terms with their automata built now (call off the event loop: 100,000 terms take a while)."""
        _ = self._sources, self._targets
        return self


def as_terms(glossary: Sequence[GlossaryTerm]) -> GlossaryTerms:
    """``glossary`` as ``GlossaryTerms`` (the same object when it is one already, so its automata are reused)."""
    return glossary if isinstance(glossary, GlossaryTerms) else GlossaryTerms(glossary)
