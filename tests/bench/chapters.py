"""Synthetic chapters of any size, made by cycling the paragraphs of Rashomon (tests/data/rashomon.txt).

Deterministic: the same ``n`` always gives the same chapter (IDs included), so sizes and timings compare
across runs. Every non-empty paragraph carries one selected translation version, like a translated chapter.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from store.atomic import atomic_write
from store.model import Chapter, Paragraph, TranslationVersion
from store.plaintext import split_lines
from store.serialize import chapter_bytes

RASHOMON = Path(__file__).resolve().parents[1] / "data" / "rashomon.txt"
_STAMP = "2026-11-21T10:00:00Z"


@cache
def source_lines() -> tuple[str, ...]:
    """The paragraphs of Rashomon, one per line, blank lines included."""
    return tuple(split_lines(RASHOMON.read_text(encoding="utf-8")))


def paragraph_id(i: int) -> str:
    """A unique 8-hex ID for position ``i`` (an odd multiplier is a bijection modulo 2**32)."""
    return f"{(i * 2654435761 + 12345) % 2**32:08x}"


def make_chapter(n: int, *, translated: bool = True, chapter_id: str = "bench") -> Chapter:
    """A chapter of ``n`` paragraphs cycling Rashomon's lines; non-empty ones get a translation if asked."""
    lines = source_lines()
    paragraphs = []
    for i in range(n):
        text = lines[i % len(lines)]
        pid = paragraph_id(i)
        if translated and text.strip():
            version = TranslationVersion(
                id=f"{(i * 40503 + 7) % 2**32:08x}",
                text="訳：" + text,
                origin="translation",
                model="bench-model",
                created_at=_STAMP,
            )
            paragraphs.append(
                Paragraph(
                    id=pid, text=text, translations=(version,), selected_translation_id=version.id, reviewed=False
                )
            )
        else:
            paragraphs.append(Paragraph(id=pid, text=text))
    return Chapter(
        id=chapter_id, title="羅生門", source_language="ja", target_language="zh-Hans", paragraphs=tuple(paragraphs)
    )


def write_chapter(path: Path, n: int, *, translated: bool = True) -> Chapter:
    """Write a fresh ``n``-paragraph chapter to ``path`` (atomically) and return it."""
    chapter = make_chapter(n, translated=translated)
    atomic_write(path, chapter_bytes(chapter), expect=None)
    return chapter
