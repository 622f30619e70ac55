"""``proofdesk export --format text|bilingual|markdown`` for a chapter or a whole workspace."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from store.model import Chapter
from store.plaintext import MissingPolicy, export_lines, export_text, one_line, words

Format = Literal["text", "bilingual", "markdown"]
SUFFIX = {"text": ".txt", "bilingual": ".txt", "markdown": ".md"}


def render(chapter: Chapter, fmt: Format, missing: MissingPolicy = "blank") -> str:
    """One chapter in ``fmt``: ``text`` is the line-per-paragraph export; ``bilingual`` each source line, its
    translation and a blank line (an empty paragraph: one blank line); ``markdown`` a title heading, then
    each translated paragraph as its own Markdown paragraph."""
    return _RENDER[fmt](chapter, missing)


def _bilingual(chapter: Chapter, missing: MissingPolicy) -> str:
    out: list[str] = []
    for para, line in zip(chapter.paragraphs, export_lines(chapter, missing), strict=True):
        out.extend([""] if para.is_empty else [one_line(words(para, para.text)), line, ""])
    return "\n".join(out) + "\n" if out else ""


def _markdown(chapter: Chapter, missing: MissingPolicy) -> str:
    out: list[str] = []
    title = chapter.title_translation or chapter.title
    if title:
        out.append(f"# {one_line(title)}\n")
    for para, line in zip(chapter.paragraphs, export_lines(chapter, missing), strict=True):
        if not para.is_empty and line.strip():
            out.append(_markdown_paragraph(line))
    return "\n".join(out)


def _markdown_paragraph(line: str) -> str:
    # A leading Markdown mark (#, -, 1.) in the text would change its meaning: escape it.
    return ("\\" + line if line.lstrip()[:1] in "#->*+|" else line) + "\n"


_RENDER: dict[Format, Callable[[Chapter, MissingPolicy], str]] = {
    "text": export_text,
    "bilingual": _bilingual,
    "markdown": _markdown,
}
