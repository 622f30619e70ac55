"""``get_paragraph_info``: one paragraph with every translation version; never restricted by boundaries."""

from __future__ import annotations

from typing import Any

from engine.context import ToolContext
from engine.tools.args import InfoArgs
from engine.tools.results import not_found, ok, paragraph_item


def get_paragraph_info(ctx: ToolContext, args: InfoArgs) -> dict[str, Any]:
    """The paragraph's item fields, ``reviewed`` and all its versions (oldest first)."""
    chapter = ctx.chapter
    pos = chapter.positions.get(args.paragraph_id)
    if pos is None:
        return not_found(chapter, args.paragraph_id)
    para = chapter.paragraphs[pos]
    selected = para.selected_translation_id
    versions = [
        {
            "id": v.id,
            "text": v.text,
            "origin": v.origin,
            "model": v.model,
            "created_at": v.created_at,
            "selected": v.id == selected,
        }
        for v in para.translations
    ]
    return ok(paragraph={**paragraph_item(para, pos), "reviewed": para.reviewed, "versions": versions})
