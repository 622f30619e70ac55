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


def check_glossary(source: str, translation: str, glossary: Sequence[GlossaryTerm]) -> Finding | None:
    """GLOSSARY_NOT_APPLIED: an entry's source (or an alias) is in the source, its target not in the translation."""
    if not glossary:
        return None
    folded_source: str | None = None
    folded_translation: str | None = None
    missing: list[GlossaryTerm] = []
    for term in glossary:
        target = term.target.strip()
        if not target:
            continue
        names = (term.source, *term.aliases)
        if not any(name and name in source for name in names):
            if folded_source is None:
                folded_source = source.lower()
            if not any(name and name.lower() in folded_source for name in names):
                continue
        if target in translation:
            continue
        if folded_translation is None:
            folded_translation = translation.lower()
        if target.lower() not in folded_translation:
            missing.append(term)
    if not missing:
        return None
    pairs = [f"{t.source} → {t.target}" for t in missing]
    noun = "entry is" if len(missing) == 1 else "entries are"
    return Finding("GLOSSARY_NOT_APPLIED", f"glossary {noun} not applied: {listed(pairs)}")
