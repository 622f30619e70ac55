"""``proofdesk export --format po``: one chapter as a gettext PO file (design section 18).

``msgctxt`` is the paragraph ID, ``msgid`` the source, ``msgstr`` the selected translation (empty when there is
none, with no flag); a translated paragraph that is not reviewed is ``#, fuzzy``. Pending suggestions are translator
comments. The header names the languages and the chapter (``X-Proofdesk-Chapter``), which the importer matches.
"""

from __future__ import annotations

import polib

from store.formats.xliff2_write import suggestion_note
from store.model import Chapter, Paragraph

CHAPTER_HEADER = "X-Proofdesk-Chapter"


def po_text(chapter: Chapter) -> str:
    """The PO file of ``chapter``: a header, then one entry per non-empty paragraph in order."""
    po = polib.POFile(wrapwidth=78)
    po.metadata = _header(chapter)
    for para in chapter.paragraphs:
        if not para.is_empty:
            po.append(_entry(para))
    return str(po)


def _header(chapter: Chapter) -> dict[str, str]:
    header = {
        "Project-Id-Version": chapter.title or chapter.id,
        "MIME-Version": "1.0",
        "Content-Type": "text/plain; charset=UTF-8",
        "Content-Transfer-Encoding": "8bit",
        "X-Generator": "proofdesk",
        CHAPTER_HEADER: chapter.id,
    }
    if chapter.target_language:
        header["Language"] = chapter.target_language
    if chapter.source_language:
        header["X-Source-Language"] = chapter.source_language
    return header


def _entry(para: Paragraph) -> polib.POEntry:
    translation = para.selected_text
    fuzzy = translation is not None and not para.reviewed
    return polib.POEntry(
        msgctxt=para.id,
        msgid=para.text,
        msgstr=translation or "",
        flags=["fuzzy"] if fuzzy else [],
        tcomment="\n".join(f"suggestion: {suggestion_note(v)}" for v in para.pending),
    )
