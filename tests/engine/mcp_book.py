"""A two-chapter workspace for the MCP tests: ch01 translated (a1 reviewed: the memory), ch02 to translate (b2
reviewed: protected; b4 mentions the glossary's 下人)."""

from __future__ import annotations

from pathlib import Path

from store.glossary_commit import GlossaryStore, add_entry
from store.glossary_read import entry_from
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes
from store.workspace import Workspace

FILL = "雨は羅生門をつつんで遠くからざあっと云う音をあつめて来る。" * 2
SMALL = 200  # two entries a chunk: [b1, b3], [b4, b5]


def para(pid: str, text: str, translation: str | None = None, *, reviewed: bool = False) -> Paragraph:
    if translation is None:
        return Paragraph(id=pid, text=text)
    version = TranslationVersion(
        id=f"v{pid}", text=translation, origin="translation", model="seed", created_at="2026-01-01T00:00:00Z"
    )
    return Paragraph(id=pid, text=text, translations=(version,), selected_translation_id=version.id, reviewed=reviewed)


def chapter(cid: str, title: str, *paragraphs: Paragraph) -> Chapter:
    return Chapter(id=cid, title=title, source_language="ja", target_language="en", paragraphs=paragraphs)


def write_book(folder: Path) -> Path:
    """The workspace, written into the new folder ``folder``."""
    folder.mkdir()
    first = chapter(
        "one", "第一章", para("a1", f"一。{FILL}", "One: the rain.", reviewed=True), para("a2", "乙。", "Otsu.")
    )
    second = chapter(
        "two",
        "第二章",
        para("b1", f"一。{FILL}"),
        para("b2", "下人。", "The servant.", reviewed=True),
        para("b3", f"三。{FILL}"),
        para("b4", f"四。下人が来た。{FILL}"),
        para("b5", f"五。{FILL}"),
    )
    (folder / "ch01.json").write_bytes(chapter_bytes(first))
    (folder / "ch02.json").write_bytes(chapter_bytes(second))
    GlossaryStore(Workspace(folder)).change(
        add_entry(entry_from({"id": "g1", "source": "下人", "target": "the servant"}))
    )
    return folder
