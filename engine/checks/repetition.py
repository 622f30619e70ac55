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


def _repeated_sentence(text: str) -> re.Match[str] | None:
    """The second occurrence of a sentence of 16 characters or more already written in ``text``, if any
    (sentences compared with surrounding spaces removed, as written: a loop repeats itself exactly)."""
    seen: set[str] = set()
    for m in _SENTENCE.finditer(text):
        sentence = m.group().strip()
        if len(sentence) < MIN_SENTENCE_CHARS:
            continue
        if sentence in seen:
            return m
        seen.add(sentence)
    return None


# 7n equal characters in a row at distance n, as zero bytes (see _may_loop).
_ZEROS = [b"\0" * (7 * n) for n in range(11)]


def _may_loop(text: str) -> bool:
    """A cheap necessary condition for a unit of n = 1-10 characters repeated 8 times in a row.

    Such a run means 7n characters in a row equal to the characters n places further on. The text is reduced to
    one byte per character (the low byte of its code point: equal characters give equal bytes); XOR-ing that, as
    one big integer, with itself shifted by n characters turns every such equality into a zero byte, so the run
    shows as 7n zero bytes in a row, found by a substring search. All of it runs in C, a small fraction of the
    regex's cost; the regex then runs only on the few texts where this holds (and decides).
    """
    size = len(text)
    if size < 8:
        return False
    low = text.encode("utf-32-le", "surrogatepass")[::4]
    whole = int.from_bytes(low, "little")
    for n in range(1, 11):
        if 8 * n > size:
            return False
        # The top n bytes meet nothing and keep their value; a zero there is a NUL character, which only makes
        # the regex run.
        if _ZEROS[n] in (whole ^ (whole >> (8 * n))).to_bytes(size, "little"):
            return True
    return False


def _run_finding(source: str, translation: str) -> Finding | None:
    """A unit repeated 8+ times in a row, at least twice as often as the source repeats anything."""
    count, run = _longest_run(_RUN, translation, MIN_PUNCTUATION_REPEATS) if _may_loop(translation) else (0, None)
    if run is None or _longest_run(_SOURCE_RUN, source)[0] * 2 >= count:
        return None
    unit, start = run.group(1), run.start()
    cut = unit.rfind(" ") + 1
    if 0 < cut < len(unit):  # "nt we" found in "servant went went …": start at the word, "went "
        unit, start = unit[cut:] + unit[:cut], start + cut
        count = (run.end() - start) // len(unit)
    end = start + count * len(unit)
    end -= len(translation[start:end]) - len(translation[start:end].rstrip())
    return Finding("REPETITION", f"{quoted(unit)} repeated {count} times in a row", (start, end))


def check_repetition(source: str, translation: str) -> Finding | None:
    """REPETITION: a unit repeated 8+ times in a row, or a sentence twice, far beyond what the source does."""
    found = _run_finding(source, translation)
    if found is not None:
        return found
    again = _repeated_sentence(translation)
    if again is None or _repeated_sentence(source) is not None:
        return None
    sentence = again.group().strip()
    start = again.start() + again.group().index(sentence)
    return Finding(
        "REPETITION", f"the sentence {quoted(sentence, 40)} is written twice", (start, start + len(sentence))
    )
