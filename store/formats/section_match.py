"""Which chapter each section of an exchange file goes back into (pure).

A section names its chapter by the chapter's ``id`` (XLIFF 2 ``file id``, a PO file's ``X-Proofdesk-Chapter``) or its
file name (XLIFF 1.2 ``file original``); a PO file without the header is matched by its own file name's stem against
the chapter files' stems. Going back into one chapter, a file of one section needs no name: a CAT tool may have
renamed it. A section that names no chapter given is reported, and its units are not applied.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from store.formats.units import ImportSection, ImportUnit
from store.model import Chapter


@dataclass
class SectionMatch:
    """The units for each chapter (by position among those given) and the sections that matched none."""

    units: dict[int, list[ImportUnit]] = field(default_factory=dict)
    unmatched: list[ImportSection] = field(default_factory=list)


def match_sections(
    sections: Sequence[ImportSection], names: Sequence[str], chapters: Sequence[Chapter], *, fallback_key: str
) -> SectionMatch:
    """Match ``sections`` to ``chapters`` (whose file names are ``names``); ``fallback_key`` stands for a section
    without a key (the exchange file's stem)."""
    match = SectionMatch()
    for section in sections:
        found = _chapter_of(section.key or fallback_key, names, chapters)
        if found is None and len(sections) == 1 and len(chapters) == 1:
            found = 0
        if found is None:
            match.unmatched.append(section)
        else:
            match.units.setdefault(found, []).extend(section.units)
    return match


def _chapter_of(key: str, names: Sequence[str], chapters: Sequence[Chapter]) -> int | None:
    for pos, (name, chapter) in enumerate(zip(names, chapters, strict=True)):
        if key in (chapter.id, name, PurePath(name).stem):
            return pos
    return None
