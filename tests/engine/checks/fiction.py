"""Paragraphs of the public-domain stories in ``tests/data`` and of the bundled sample, for the checks' cases."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from store.loader import load_chapter
from store.model import Chapter

DATA = Path(__file__).resolve().parents[2] / "data"
SAMPLE = Path(__file__).resolve().parents[3] / "tui" / "samples" / "rashomon.json"


@cache
def _lines(name: str) -> tuple[str, ...]:
    return tuple((DATA / name).read_text(encoding="utf-8").split("\n"))


def rashomon(index: int) -> str:
    """Paragraph ``[index]`` of the bundled sample, 芥川龍之介「羅生門」 (leading ideographic space included)."""
    return sample().paragraphs[index - 1].text


def kuangren(start: str, line: int = 1) -> str:
    """The ``line``-th line after the heading ``start`` (such as "【二】") of 鲁迅《狂人日记》."""
    lines = _lines("kuangren_riji.txt")
    return lines[lines.index(start) + line]


def unsu(line: int) -> str:
    """Line ``line`` (1-based) of 현진건「운수 좋은 날」 as kept in tests/data."""
    return _lines("unsu_joeun_nal.txt")[line - 1]


@cache
def sample() -> Chapter:
    """The bundled sample chapter (Rashomon, ja → en, untranslated)."""
    return load_chapter(SAMPLE)
