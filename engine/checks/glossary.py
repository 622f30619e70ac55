"""GLOSSARY_NOT_APPLIED, and where glossary targets sit in a translation (text the script checks do not count).

The checks get the workspace's *approved* entries only (a proposed entry is not yet a rule). A target is applied
when the translation has it the way an editor would accept it:

- a target in Latin script (``the servant``, ``Old Mr. Zhao``) matches in any case, with or without its leading
  article (a/an/the: ``A servant``, ``servant``), with a plural ``s``/``es`` on its last word (``the servants``,
  ``foxes``), as whole words (``gateway`` does not apply ``the gate``); an irregular plural or any other accepted
  variant is a target alias of the entry (``"target_aliases": ["the dead men"]``);
- any other target (Han, kana, hangul) matches as written, Latin letters in it case-insensitively.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from engine.checks.glossary_terms import GlossaryTerm, GlossaryTerms, as_terms
from engine.checks.warning import Finding, Span, listed

__all__ = ["GlossaryTerm", "GlossaryTerms", "as_terms", "check_glossary", "inside", "target_spans"]

_ARTICLES = frozenset({"a", "an", "the"})
# A letter that is not Latin (Latin: ASCII, Latin-1, Latin Extended-A/B, Latin Extended Additional).
_OTHER_LETTER = re.compile("[^\\W\\d_A-Za-z\u00c0-\u00d6\u00d8-\u00f6\u00f8-\u024f\u1e00-\u1eff]")
_LETTER = re.compile(r"[^\W\d_]")


def target_spans(translation: str, glossary: Sequence[GlossaryTerm]) -> list[Span]:
    """Every place in ``translation`` where a glossary target or target alias holding a wide character (kana, Han,
    hangul) occurs: the text the script checks must not count."""
    return as_terms(glossary).target_spans(translation) if glossary else []


def inside(spans: Sequence[Span], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies within one of ``spans``."""
    return any(s <= start and end <= e for s, e in spans)


@lru_cache(maxsize=4096)
def _latin_pattern(target: str) -> re.Pattern[str] | None:
    """How a target in Latin script is found in a translation; None for a target in another script (or none)."""
    words = target.split()
    if not words or _OTHER_LETTER.search(target) or not _LETTER.search(target):
        return None
    if len(words) > 1 and words[0].casefold() in _ARTICLES:
        words = words[1:]
    core = r"\s+".join(map(re.escape, words))
    return re.compile(rf"(?<!\w){core}(?:e?s)?(?!\w)", re.IGNORECASE)


class _Translation:
    """A translation and, made once when first needed, its lower-cased form."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None

    def has(self, target: str) -> bool:
        """Whether ``target`` is applied in the translation (see the module docstring)."""
        pattern = _latin_pattern(target)
        if pattern is not None:
            return pattern.search(self.text) is not None
        if target in self.text:
            return True
        if self._lower is None:
            self._lower = self.text.lower()
        return target.lower() in self._lower


def check_glossary(source: str, translation: str, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """GLOSSARY_NOT_APPLIED: an entry's source (or an alias) is in the source, and neither its target nor a target
    alias is applied in the translation."""
    if not glossary:
        return None
    text = _Translation(translation)
    missing = [t for t in as_terms(glossary).mentioned(source) if t.targets and not any(map(text.has, t.targets))]
    if not missing:
        return None
    pairs = [f"{t.source} → {t.target}" for t in missing]
    noun = "entry is" if len(missing) == 1 else "entries are"
    return Finding("GLOSSARY_NOT_APPLIED", f"glossary {noun} not applied: {listed(pairs)}")
