"""CODES_DIFFER: the translation's inline codes (``⟦n⟧…⟦/n⟧``, ``⟦n/⟧``: a book's markup, design section 21) are
not the source's set: one missing, one extra, one repeated, or paired codes unbalanced or crossing each other.
An EPUB export still loses nothing (``store.books.inline_restore``), but markup may be dropped or moved to the
block's end, so the severity is ``error``; ``add_translation_batch`` returns it so the model can fix it."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from engine.checks.warning import Finding, Span
from store.books.code_text import OPEN, Code, codes


@dataclass
class _Differences:
    missing: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    repeated: list[str] = field(default_factory=list)
    nesting: list[str] = field(default_factory=list)
    span: Span | None = None

    def note(self, kind: list[str], code: Code) -> None:
        if code.written() not in kind:
            kind.append(code.written())
        if self.span is None:
            self.span = (code.start, code.end)

    def any(self) -> bool:
        return bool(self.missing or self.extra or self.repeated or self.nesting)

    def message(self) -> str:
        said = [
            f"{what} {' '.join(found)}"
            for what, found in (
                ("missing", self.missing),
                ("extra", self.extra),
                ("repeated", self.repeated),
                ("unbalanced or crossing", self.nesting),
            )
            if found
        ]
        return "the inline codes differ from the source's (keep each once, paired ones around their words): " + (
            "; ".join(said)
        )


def _counts(found: list[Code], wanted: Counter[str], out: _Differences) -> None:
    got = Counter(code.written() for code in found)
    out.missing.extend(code for code in wanted if code not in got)
    for code in found:
        _count(code, got, wanted, out)


def _count(code: Code, got: Counter[str], wanted: Counter[str], out: _Differences) -> None:
    written = code.written()
    if written not in wanted:
        out.note(out.extra, code)
    elif got[written] > wanted[written]:
        out.note(out.repeated, code)


def _nesting(found: list[Code], out: _Differences) -> None:
    """Paired codes closed before they open, never closed, or closed across another."""
    stack: list[Code] = []
    for code in found:
        if code.kind == "open":
            stack.append(code)
        elif code.kind == "close":
            _close(code, stack, out)
    for code in stack:
        out.note(out.nesting, code)


def _close(code: Code, stack: list[Code], out: _Differences) -> None:
    if stack and stack[-1].number == code.number:
        stack.pop()
    elif any(opened.number == code.number for opened in stack):
        out.note(out.nesting, code)
        while stack[-1].number != code.number:
            stack.pop()
        stack.pop()
    else:
        out.note(out.nesting, code)


def check_codes(source: str, translation: str) -> Finding | None:
    """CODES_DIFFER: which codes are missing, extra, repeated, unbalanced or crossing (span: the first placed)."""
    if OPEN not in source and OPEN not in translation:
        return None
    found = codes(translation)
    out = _Differences()
    _counts(found, Counter(code.written() for code in codes(source)), out)
    _nesting(found, out)
    if not out.any():
        return None
    return Finding("CODES_DIFFER", out.message(), out.span)
