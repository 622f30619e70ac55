"""Chapters for the chunk and tool tests: built in memory, written as real chapter files when needed."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from engine.tools import default_registry
from engine.tools.registry import ToolRegistry
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes

DATA = Path(__file__).resolve().parents[1] / "data"
REGISTRY: ToolRegistry = default_registry()


def chapter_of(
    texts: Sequence[str],
    *,
    ids: Sequence[str] | None = None,
    translations: Mapping[int, str] | None = None,
    chapter_id: str = "ch01",
    source_language: str | None = "ja",
    target_language: str | None = "en",
) -> Chapter:
    """A chapter with these source texts; ``translations`` maps 0-based positions to a selected translation."""
    ids = list(ids) if ids is not None else [f"p{i:07x}" for i in range(1, len(texts) + 1)]
    paragraphs = []
    for pos, (pid, text) in enumerate(zip(ids, texts, strict=True)):
        done = (translations or {}).get(pos)
        if done is None:
            paragraphs.append(Paragraph(id=pid, text=text))
        else:
            version = TranslationVersion(
                id=f"v{pos:07x}", text=done, origin="translation", model="seed", created_at="2026-01-01T00:00:00Z"
            )
            paragraphs.append(Paragraph(id=pid, text=text, translations=(version,), selected_translation_id=version.id))
    return Chapter(
        id=chapter_id,
        title="test",
        source_language=source_language,
        target_language=target_language,
        paragraphs=tuple(paragraphs),
    )


def seed_chapter(*, translated: bool = False) -> Chapter:
    """The seeds' chapter: paragraphs P1..P5 (a chunk [P1..P5] is the whole chapter)."""
    texts = [f"第{i}段の本文。" for i in range(1, 6)]
    translations = {i: f"Paragraph {i + 1}." for i in range(5)} if translated else None
    return chapter_of(texts, ids=[f"P{i}" for i in range(1, 6)], translations=translations)


def rashomon_texts() -> list[str]:
    """The lines of the real test text (blank lines kept: they become empty paragraphs)."""
    return (DATA / "rashomon.txt").read_text(encoding="utf-8").split("\n")[:-1]


def write_chapter(path: Path, chapter: Chapter) -> Path:
    """Write ``chapter`` canonically to ``path``."""
    path.write_bytes(chapter_bytes(chapter))
    return path


async def call(
    name: str, arguments: Any, chapter: Any, paragraph_ids: Sequence[str] | None = None, **options: Any
) -> dict[str, Any]:
    """One tool call through the default registry."""
    return await REGISTRY.handle_tool_call(name, arguments, source=chapter, paragraph_ids=paragraph_ids, **options)


def ids_of(result: dict[str, Any], key: str = "paragraphs") -> list[str]:
    """The paragraph IDs of a result's item list."""
    return [item["paragraph_id"] for item in result[key]]
