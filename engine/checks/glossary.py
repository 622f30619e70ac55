"""Glossary terms as the checks see them, where their targets sit in a translation, and GLOSSARY_NOT_APPLIED.

The checks get the workspace's *approved* entries only (a proposed entry is not yet a rule). Matching is
case-insensitive for Latin letters, so "The servant" applies "the servant".
"""

from __future__ import annotations

from collections.abc import Sequence

from msgspec import Struct

from engine.checks.warning import Finding, Span, listed


class GlossaryTerm(Struct, frozen=True):
    """An approved glossary entry: the source term, the target to use, and other source spellings."""

    source: str
    target: str
    aliases: tuple[str, ...] = ()


def _folded(text: str) -> str:
    """``text`` lower-cased where that keeps every offset (it does for all but a few letters such as İ)."""
    lowered = text.lower()
    return lowered if len(lowered) == len(text) else text


def target_spans(translation: str, glossary: Sequence[GlossaryTerm]) -> list[Span]:
    """Every place in ``translation`` where a glossary target occurs (for checks that must not count them)."""
    if not glossary:
        return []
    haystack = _folded(translation)
    spans: list[Span] = []
    for term in glossary:
        needle = _folded(term.target.strip())
        if not needle:
            continue
        at = haystack.find(needle)
        while at >= 0:
            spans.append((at, at + len(needle)))
            at = haystack.find(needle, at + len(needle))
    return spans


def inside(spans: Sequence[Span], start: int, end: int) -> bool:
    """Whether ``[start, end)`` lies within one of ``spans``."""
    return any(s <= start and end <= e for s, e in spans)


class _Folded:
    """A text and, made once when first needed, its lower-cased form (Latin letters match case-insensitively)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._lower: str | None = None

    def has(self, part: str) -> bool:
        if part in self.text:
            return True
        if self._lower is None:
            self._lower = self.text.lower()
        return part.lower() in self._lower


def _not_applied(term: GlossaryTerm, source: _Folded, translation: _Folded) -> bool:
    """Whether the source names ``term`` (or an alias) and the translation lacks its target."""
    target = term.target.strip()
    if not target or not any(name and source.has(name) for name in (term.source, *term.aliases)):
        return False
    return not translation.has(target)


def check_glossary(source: str, translation: str, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """GLOSSARY_NOT_APPLIED: an entry's source (or an alias) is in the source, its target not in the translation."""
    if not glossary:
        return None
    src, tr = _Folded(source), _Folded(translation)
    missing = [term for term in glossary if _not_applied(term, src, tr)]
    if not missing:
        return None
    pairs = [f"{t.source} → {t.target}" for t in missing]
    noun = "entry is" if len(missing) == 1 else "entries are"
    return Finding("GLOSSARY_NOT_APPLIED", f"glossary {noun} not applied: {listed(pairs)}")
