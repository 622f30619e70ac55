"""Chapters for the exchange-format tests: every state a paragraph can be in, written through the store's serialiser."""

from __future__ import annotations

from pathlib import Path

from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes

STAMP = "2026-11-21T10:00:00Z"


def version(vid: str, text: str, origin: str = "translation", **extra: str | None) -> TranslationVersion:
    """A version with a fixed timestamp; ``extra`` are its optional keys (status, reason, based_on)."""
    return TranslationVersion(id=vid, text=text, origin=origin, model="m", created_at=STAMP, extra=extra)  # type: ignore[arg-type]


def states_chapter(chapter_id: str = "ch01") -> Chapter:
    """Untranslated, translated, reviewed, a manual selection (protected), a pending suggestion with a reason, an ID
    that is not an NMTOKEN, a line break with CR, a control character, and an empty paragraph."""
    return Chapter(
        id=chapter_id,
        title="第一章",
        source_language="ja",
        target_language="en",
        paragraphs=(
            Paragraph(id="a0000001", text="一つ目。"),
            Paragraph(
                id="a0000002",
                text="二つ目。",
                translations=(version("v1", "Second."),),
                selected_translation_id="v1",
            ),
            Paragraph(id="a0000003", text=""),
            Paragraph(
                id="a0000004",
                text="四つ目。",
                translations=(version("v2", "Fourth."),),
                selected_translation_id="v2",
                reviewed=True,
            ),
            Paragraph(
                id="a0000005",
                text="五つ目。",
                translations=(version("v3", "Fifth, by hand.", "manual"),),
                selected_translation_id="v3",
            ),
            Paragraph(
                id="a0000006",
                text="六つ目。",
                translations=(
                    version("v4", "Sixth."),
                    version(
                        "v5", "The sixth.", "proofreading", status="suggested", reason="An article.", based_on="v4"
                    ),
                ),
                selected_translation_id="v4",
            ),
            Paragraph(
                id="p/3",
                text="「七」\r\n  と言った。 ",
                translations=(version("v6", "“Seven,”\r\n  he said. "),),
                selected_translation_id="v6",
            ),
            Paragraph(id="a0000008", text="bell\x07 & <tag>"),
        ),
    )


def write(path: Path, chapter: Chapter) -> Path:
    """Write ``chapter`` to ``path`` in the canonical format."""
    path.write_bytes(chapter_bytes(chapter))
    return path
