"""A check case: a source, a translation, the language pair and a glossary; and running the checks on it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from engine.checks import CheckWarning, GlossaryTerm, check_paragraph


@dataclass(frozen=True)
class Case:
    """One (source, translation) pair; ``marked`` is the text a positive case's span must cover."""

    source: str
    translation: str
    source_language: str | None = "ja"
    target_language: str | None = "en"
    glossary: tuple[GlossaryTerm, ...] = ()
    marked: str | None = None

    def warnings(self) -> dict[str, CheckWarning]:
        """Code -> warning for this pair."""
        found = check_paragraph(
            self.source,
            self.translation,
            self.source_language,
            self.target_language,
            self.glossary,
            paragraph_id="p1",
            paragraph_index=1,
        )
        assert len({w.code for w in found}) == len(found), "one warning per code"
        return {w.code: w for w in found}


def params(cases: dict[str, Case]) -> list[Any]:
    """The cases as pytest parameters named by their keys."""
    return [pytest.param(case, id=name) for name, case in cases.items()]


def assert_fires(case: Case, code: str) -> CheckWarning:
    """``code`` is among the case's warnings, with a span inside the translation covering ``marked``."""
    found = case.warnings()
    assert code in found, f"{code} expected, got {sorted(found)}"
    warning = found[code]
    assert warning.message and warning.paragraph_id == "p1" and warning.paragraph_index == 1
    if warning.span is not None:
        start, end = warning.span
        assert 0 <= start < end <= len(case.translation)
    if case.marked is not None:
        assert warning.span is not None and case.translation[warning.span[0] : warning.span[1]] == case.marked
    return warning


def assert_quiet(case: Case, code: str) -> None:
    """``code`` is not among the case's warnings."""
    found = case.warnings()
    assert code not in found, f"{code} fired: {found[code].message}"
