"""A chapter as plain JSON data: the reference the serialiser's bytes are checked against (``json.dumps`` of it)."""

from __future__ import annotations

from typing import Any

from store.model import Chapter

_CHAPTER_KEYS = ("format", "id", "title", "title_translation", "source_language", "target_language")
_VERSION_KEYS = ("id", "text", "origin", "model", "created_at")


def chapter_document(chapter: Chapter) -> dict[str, Any]:
    """The chapter as plain JSON data in canonical key order."""
    doc: dict[str, Any] = {k: getattr(chapter, k) for k in _CHAPTER_KEYS}
    doc["paragraphs"] = [
        {
            "id": p.id,
            "text": p.text,
            "translations": [{**{k: getattr(t, k) for k in _VERSION_KEYS}, **t.extra} for t in p.translations],
            "selected_translation_id": p.selected_translation_id,
            "reviewed": p.reviewed,
            **p.extra,
        }
        for p in chapter.paragraphs
    ]
    doc.update(chapter.extra)
    return doc
