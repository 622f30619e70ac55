"""Small chapters for the TUI tests, written as real files through the store's serialiser."""

from __future__ import annotations

from pathlib import Path

from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes

STAMP = "2026-11-21T10:00:00Z"


def version(vid: str, text: str, origin: str = "translation", model: str | None = "test-model") -> TranslationVersion:
    """A translation version with a fixed timestamp (snapshots must not depend on the clock)."""
    return TranslationVersion(id=vid, text=text, origin=origin, model=model, created_at=STAMP)  # type: ignore[arg-type]


def review_chapter() -> Chapter:
    """Six paragraphs covering every state: untranslated, translated with two versions, empty, reviewed."""
    return Chapter(
        id="review",
        title="Review test",
        source_language="ja",
        target_language="en",
        paragraphs=(
            Paragraph(id="p0000001", text="一つ目の段落です。"),
            Paragraph(
                id="p0000002",
                text="二つ目の段落です。",
                translations=(
                    version("v0000001", "This is the second paragraph."),
                    version("v0000002", "This is the 2nd paragraph, polished.", "polish"),
                ),
                selected_translation_id="v0000002",
            ),
            Paragraph(id="p0000003", text=""),
            Paragraph(
                id="p0000004",
                text="四つ目の段落です。",
                translations=(version("v0000003", "The fourth paragraph."),),
                selected_translation_id="v0000003",
                reviewed=True,
            ),
            Paragraph(
                id="p0000005",
                text="五つ目の段落です。",
                translations=(version("v0000004", "The fifth paragraph."),),
                selected_translation_id="v0000004",
            ),
            Paragraph(id="p0000006", text="六つ目。"),
        ),
    )


def small_chapter() -> Chapter:
    """Three short Japanese paragraphs and an empty one, none translated (a run's whole work set fits one chunk)."""
    sources = ("一つ目の文。", "", "二つ目の文。", "三つ目の文。")
    return Chapter(
        id="small",
        title="Small",
        source_language="ja",
        target_language="en",
        paragraphs=tuple(Paragraph(id=f"a000000{i}", text=t) for i, t in enumerate(sources, 1)),
    )


def write(path: Path, chapter: Chapter) -> Path:
    """Write ``chapter`` to ``path`` in the canonical format."""
    path.write_bytes(chapter_bytes(chapter))
    return path


def showcase_chapter(sample: Chapter) -> Chapter:
    """The first 14 paragraphs of the sample, in every state: untranslated, translated (one with two versions),
    reviewed, empty; the tests add "changed by the last run" and a conflict."""
    paragraphs = list(sample.paragraphs[:14])
    for pos in (0, 1, 3, 4, 5):
        para = paragraphs[pos]
        text = f"[en] {para.text.strip()[:18]}"
        versions = (version(f"t{pos:07d}", text),)
        if pos == 3:
            versions = (*versions, version(f"u{pos:07d}", text + " (polished)", "polish"))
        paragraphs[pos] = para.replace(
            translations=versions, selected_translation_id=versions[-1].id, reviewed=pos in (0, 1)
        )
    return sample.replace(paragraphs=tuple(paragraphs))
