"""``proofdesk export --format text|bilingual|markdown`` for a chapter or a whole workspace."""

from __future__ import annotations

from typing import Literal

from store.model import Chapter
from store.plaintext import MissingPolicy, export_lines, export_text, one_line

Format = Literal["text", "bilingual", "markdown"]
SUFFIX = {"text": ".txt", "bilingual": ".txt", "markdown": ".md"}


def render(chapter: Chapter, fmt: Format, missing: MissingPolicy = "blank") -> str:
    """One chapter in ``fmt``: ``text`` is the line-per-paragraph export; ``bilingual`` each source line, its
    translation and a blank line (an empty paragraph: one blank line); ``markdown`` a title heading, then
    each translated paragraph as its own Markdown paragraph."""
    if fmt == "text":
        return export_text(chapter, missing)
    lines = export_lines(chapter, missing)
    out: list[str] = []
    if fmt == "bilingual":
        for para, line in zip(chapter.paragraphs, lines, strict=True):
            out.extend([""] if para.is_empty else [one_line(para.text), line, ""])
        return "\n".join(out) + "\n" if out else ""
    title = chapter.title_translation or chapter.title
    if title:
        out.append(f"# {one_line(title)}\n")
    for para, line in zip(chapter.paragraphs, lines, strict=True):
        if not para.is_empty and line.strip():
            # A leading Markdown mark (#, -, 1.) in the text would change its meaning: escape it.
            out.append(("\\" + line if line.lstrip()[:1] in "#->*+|" else line) + "\n")
    return "\n".join(out)
