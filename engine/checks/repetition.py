"""REPETITION: degenerate output, a model stuck in a loop.

Two shapes: the same unit of 1-10 characters 8 or more times in a row (ごごごごごごごご, "the the the …"), and
a sentence of 16 characters or more written twice. Fiction repeats on purpose (あああああああああ, ……………,
a refrain), so a run counts only when the source has none half as long, and a repeated sentence only when the
source repeats none; a unit of punctuation or digits alone (…, ―, !, 0) needs 16 repetitions.
"""

from __future__ import annotations

import re

from engine.checks.warning import Finding, quoted

MIN_REPEATS = 8
MIN_PUNCTUATION_REPEATS = 16
MIN_SENTENCE_CHARS = 16

_RUN = re.compile(r"(.{1,10}?)\1{7,}", re.DOTALL)
_SOURCE_RUN = re.compile(r"(.{1,10}?)\1{2,}", re.DOTALL)
_WORDLESS = re.compile(r"[\W_\d]+")
_SENTENCE = re.compile(r"[^.!?。！？…\n]+[.!?。！？…]*")
_SPACE = re.compile(r"\s+")


def _longest_run(pattern: re.Pattern[str], text: str, punctuation_floor: int = 0) -> tuple[int, re.Match[str] | None]:
    """The most repetitions of one unit in a row, and where; a punctuation unit below ``punctuation_floor`` is
    not counted."""
    best, where = 0, None
    for m in pattern.finditer(text):
        unit = m.group(1)
        count = len(m.group()) // len(unit)
        if count < punctuation_floor and _WORDLESS.fullmatch(unit):
            continue
        if count > best:
            best, where = count, m
    return best, where


def _sentences(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _SENTENCE.finditer(text):
        norm = _SPACE.sub(" ", m.group().strip().lower())
        if len(norm) >= MIN_SENTENCE_CHARS:
            lead = len(m.group()) - len(m.group().lstrip())
            out.append((norm, m.start() + lead, m.end()))
    return out


def _repeats_a_sentence(text: str) -> bool:
    seen: set[str] = set()
    for norm, _, _ in _sentences(text):
        if norm in seen:
            return True
        seen.add(norm)
    return False


def check_repetition(source: str, translation: str) -> Finding | None:
    """REPETITION: a unit repeated 8+ times in a row, or a sentence twice, far beyond what the source does."""
    count, run = _longest_run(_RUN, translation, MIN_PUNCTUATION_REPEATS)
    if run is not None and _longest_run(_SOURCE_RUN, source)[0] * 2 < count:
        unit, start = run.group(1), run.start()
        cut = unit.rfind(" ") + 1
        if 0 < cut < len(unit):  # "nt we" found in "servant went went …": start at the word, "went "
            unit, start = unit[cut:] + unit[:cut], start + cut
            count = (run.end() - start) // len(unit)
        end = start + count * len(unit)
        end -= len(translation[start:end]) - len(translation[start:end].rstrip())
        return Finding("REPETITION", f"{quoted(unit)} repeated {count} times in a row", (start, end))
    seen: set[str] = set()
    for norm, start, end in _sentences(translation):
        if norm in seen:
            if _repeats_a_sentence(source):
                return None
            return Finding("REPETITION", f"the sentence {quoted(norm, 40)} is written twice", (start, end))
        seen.add(norm)
    return None
