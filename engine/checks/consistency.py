"""INCONSISTENT: across a workspace, one source paragraph translated in different ways.

Two paragraphs have the same source when their texts are equal with surrounding whitespace (and the ideographic
space of Japanese indentation) removed; a source counts only with at least 2 letters (「……」 or ―― are not
text). Translations compare with runs of whitespace squeezed. Each paragraph of such a group gets a warning
naming the paragraphs translated otherwise, so the editor can pick one wording.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from engine.checks.warning import SEVERITIES, CheckWarning
from store.model import Chapter

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


def _groups(chapters: Sequence[Chapter]) -> list[list[_Place]]:
    """The groups of paragraphs sharing a source whose translations are not all the same."""
    first: dict[str, _Place] = {}
    more: dict[str, list[_Place]] = {}
    for c, chapter in enumerate(chapters):
        for pos, para in enumerate(chapter.paragraphs):
            translation = para.selected_text
            if translation is None:
                continue
            key = _key(para.text)
            if key is None:
                continue
            place = (c, pos, translation)
            seen = first.get(key)
            if seen is None:
                first[key] = place
            elif key in more:
                more[key].append(place)
            else:
                more[key] = [seen, place]
    groups = []
    for places in more.values():
        if len({t for _, _, t in places}) == 1:
            continue  # the same text everywhere: nothing to squeeze
        squeezed = [(c, pos, _SPACE.sub(" ", t.strip())) for c, pos, t in places]
        if len({t for _, _, t in squeezed}) > 1:
            groups.append(squeezed)
    return groups


def check_consistency(chapters: Sequence[Chapter], names: Sequence[str] | None = None) -> list[list[CheckWarning]]:
    """INCONSISTENT warnings for each of ``chapters`` (same order); ``names`` label the chapters in messages."""
    out: list[list[CheckWarning]] = [[] for _ in chapters]
    for places in _groups(chapters):
        for c, pos, translation in places:
            others = [p for p in places if p[2] != translation]
            shown = []
            for oc, opos, _ in others[:MAX_NAMED]:
                where = f"[{opos + 1}] {chapters[oc].paragraphs[opos].id}"
                if oc != c:
                    where += f" ({names[oc] if names is not None else chapters[oc].id})"
                shown.append(where)
            more = f" and {len(others) - MAX_NAMED} more" if len(others) > MAX_NAMED else ""
            para = chapters[c].paragraphs[pos]
            message = f"the same source is translated differently in {', '.join(shown)}{more}"
            out[c].append(CheckWarning("INCONSISTENT", para.id, pos + 1, message, SEVERITIES["INCONSISTENT"]))
    for warnings in out:
        warnings.sort(key=lambda w: w.paragraph_index)
    return out
