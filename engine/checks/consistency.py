"""INCONSISTENT: across a workspace, one source paragraph translated in different ways.

Two paragraphs have the same source when their texts are equal with surrounding whitespace (and the ideographic
space of Japanese indentation) removed; a source counts only with at least 2 letters (「……」 or ―― are not
text). Translations compare with runs of whitespace squeezed. Each paragraph of such a group gets a warning
naming the paragraphs translated otherwise, so the editor can pick one wording.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from itertools import islice

from engine.checks.warning import SEVERITIES, CheckWarning
from store.model import Chapter, Paragraph

_LETTER = re.compile(r"[^\W\d_]")
_SPACE = re.compile(r"\s+")
_STRIP = " \t\r\n\u3000\ufeff"
MAX_NAMED = 3

# One paragraph of the workspace: (chapter number, 0-based position, its translation).
_Place = tuple[int, int, str]


def _key(text: str) -> str | None:
    stripped = text.strip(_STRIP)
    first = _LETTER.search(stripped)
    if first is None or _LETTER.search(stripped, first.end()) is None:
        return None
    return stripped


def _translated_key(para: Paragraph) -> str | None:
    """The source key of a translated paragraph (None: untranslated, or a source that is not text)."""
    return None if para.selected_text is None else _key(para.text)


def _differing(places: list[_Place]) -> list[_Place] | None:
    """``places`` with their translations squeezed when those are not all the same, else None."""
    if _all_same(t for _, _, t in places):
        return None  # one paragraph, or the same text everywhere: nothing to squeeze
    squeeze = {t: _SPACE.sub(" ", t.strip()) for t in {t for _, _, t in places}}  # each wording once
    return None if _all_same(squeeze.values()) else [(c, pos, squeeze[t]) for c, pos, t in places]


def _all_same(texts: Iterable[str]) -> bool:
    return len(set(texts)) <= 1


def _groups(chapters: Sequence[Chapter]) -> list[list[_Place]]:
    """The groups of paragraphs sharing a source whose translations are not all the same."""
    by_key: dict[str, list[_Place]] = {}
    for c, chapter in enumerate(chapters):
        for pos, para in enumerate(chapter.paragraphs):
            key = _translated_key(para)
            if key is not None:
                by_key.setdefault(key, []).append((c, pos, para.selected_text or ""))
    return [group for places in by_key.values() if (group := _differing(places)) is not None]


def _where(chapters: Sequence[Chapter], names: Sequence[str] | None, c: int, place: _Place) -> str:
    """``[3] p0000003``, with ``(ch2.json)`` when the place is in another chapter than ``c``."""
    oc, opos, _ = place
    where = f"[{opos + 1}] {chapters[oc].paragraphs[opos].id}"
    if oc != c:
        where += f" ({names[oc] if names is not None else chapters[oc].id})"
    return where


def _group_warnings(
    places: list[_Place], chapters: Sequence[Chapter], names: Sequence[str] | None = None
) -> list[tuple[int, CheckWarning]]:
    """The INCONSISTENT warning of each place of one group, with the number of its chapter."""
    counts = Counter(t for _, _, t in places)
    messages: dict[tuple[str, int], str] = {}  # one per wording and chapter: it names the same places
    out: list[tuple[int, CheckWarning]] = []
    for c, pos, translation in places:
        message = messages.get((translation, c))
        if message is None:
            message = messages[translation, c] = _message(places, chapters, names, c, translation, counts)
        para = chapters[c].paragraphs[pos]
        out.append((c, CheckWarning("INCONSISTENT", para.id, pos + 1, message, SEVERITIES["INCONSISTENT"])))
    return out


def _message(
    places: list[_Place],
    chapters: Sequence[Chapter],
    names: Sequence[str] | None,
    c: int,
    translation: str,
    counts: Counter[str],
) -> str:
    """What a paragraph of chapter ``c`` translated ``translation`` is told: the first places translated otherwise."""
    others = islice((p for p in places if p[2] != translation), MAX_NAMED)
    shown = [_where(chapters, names, c, place) for place in others]
    left = len(places) - counts[translation] - len(shown)
    more = f" and {left} more" if left > 0 else ""
    return f"the same source is translated differently in {', '.join(shown)}{more}"


def check_consistency(chapters: Sequence[Chapter], names: Sequence[str] | None = None) -> list[list[CheckWarning]]:
    """INCONSISTENT warnings for each of ``chapters`` (same order); ``names`` label the chapters in messages."""
    out: list[list[CheckWarning]] = [[] for _ in chapters]
    for places in _groups(chapters):
        for c, warning in _group_warnings(places, chapters, names):
            out[c].append(warning)
    for warnings in out:
        warnings.sort(key=lambda w: w.paragraph_index)
    return out


def _move(members: dict[str, tuple[int, ...]], pos: int, old: str | None, new: str | None) -> set[str]:
    """Move ``pos`` from the group of source key ``old`` to that of ``new``; the keys whose groups changed."""
    if old != new:
        if old is not None:
            members[old] = tuple(p for p in members[old] if p != pos)
        if new is not None:
            members[new] = tuple(sorted((*members.get(new, ()), pos)))
    return _keys(old, new)  # the same key too: its translation may have changed


def _keys(*keys: str | None) -> set[str]:
    return {key for key in keys if key is not None}


def _group_in(chapter: Chapter, positions: tuple[int, ...]) -> dict[int, CheckWarning]:
    """The INCONSISTENT warnings of the paragraphs at ``positions`` of ``chapter`` (one source), by position."""
    group = _differing([(0, pos, chapter.paragraphs[pos].selected_text or "") for pos in positions])
    return {} if group is None else {w.paragraph_index - 1: w for _, w in _group_warnings(group, [chapter])}


@dataclass(frozen=True)
class ChapterConsistency:
    """INCONSISTENT among the paragraphs of one chapter, updated group by group as paragraphs change."""

    chapter: Chapter
    keys: tuple[str | None, ...]  # per position: its source key when translated
    members: Mapping[str, tuple[int, ...]]  # per source key: the positions with it, ascending
    warnings: Mapping[int, CheckWarning]  # per position

    @classmethod
    def of(cls, chapter: Chapter) -> ChapterConsistency:
        """INCONSISTENT in ``chapter``."""
        keys = tuple(_translated_key(p) for p in chapter.paragraphs)
        members: dict[str, list[int]] = {}
        for pos, key in enumerate(keys):
            if key is not None:
                members.setdefault(key, []).append(pos)
        found = cls(chapter, keys, {k: tuple(v) for k, v in members.items()}, {})
        return found._regrouped(chapter, set(members), ())

    def update(self, chapter: Chapter, changed: Iterable[int]) -> ChapterConsistency:
        """INCONSISTENT in ``chapter``: the same paragraph IDs at the same places as this one's chapter, the
        texts changed at the positions ``changed`` (only the groups of their old and new sources are found again)."""
        changed = tuple(changed)
        keys = list(self.keys)
        members = dict(self.members)
        touched: set[str] = set()
        for pos in changed:
            new = _translated_key(chapter.paragraphs[pos])
            touched.update(_move(members, pos, keys[pos], new))
            keys[pos] = new
        return ChapterConsistency(chapter, tuple(keys), members, self.warnings)._regrouped(chapter, touched, changed)

    def _regrouped(self, chapter: Chapter, keys: set[str], dropped: Iterable[int]) -> ChapterConsistency:
        """This with the warnings at ``dropped`` gone and those of the groups of ``keys`` found again."""
        warnings = dict(self.warnings)
        for pos in (*dropped, *(p for key in keys for p in self.members.get(key, ()))):
            warnings.pop(pos, None)
        for key in keys:
            warnings.update(_group_in(chapter, self.members.get(key, ())))
        return ChapterConsistency(chapter, self.keys, self.members, warnings)

    def listed(self) -> list[CheckWarning]:
        """The warnings in paragraph order."""
        return [self.warnings[pos] for pos in sorted(self.warnings)]
