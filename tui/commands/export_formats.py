"""The one list of ``proofdesk export --format`` choices: each format's name, what it writes, and its writer.

The CLI's choices and help come from :data:`FORMATS`; a new format is one entry here and one writer module. Writers are
imported when chosen, so ``proofdesk export`` pays only for the one it runs (lxml and polib load with the formats
that need them).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from tui.commands.export_job import ExportJob


@dataclass(frozen=True)
class ExportFormat:
    """A format: its ``--format`` name, a few words for ``--help``, and the writer of an export job."""

    name: str
    words: str
    export: Callable[[ExportJob], int]


def _plain(job: ExportJob) -> int:
    from tui.commands.export_plain import export_plain

    return export_plain(job)


def _epub(job: ExportJob) -> int:
    from tui.commands.export_epub import export_book

    return export_book(job)


def _document(job: ExportJob) -> int:
    from tui.commands.export_exchange import export_document

    return export_document(job)


def _po(job: ExportJob) -> int:
    from tui.commands.export_exchange import export_po

    return export_po(job)


FORMATS: dict[str, ExportFormat] = {
    f.name: f
    for f in (
        ExportFormat("text", "one line per paragraph (the default)", _plain),
        ExportFormat("bilingual", "source, translation, blank line", _plain),
        ExportFormat("markdown", "a title heading, then each translated paragraph", _plain),
        ExportFormat("epub", "an imported book's workspace written back as an EPUB (-o OUT.epub)", _epub),
        ExportFormat("xliff", "XLIFF 2.1 for CAT tools, one <file> per chapter", _document),
        ExportFormat("xliff12", "XLIFF 1.2 for older CAT tools", _document),
        ExportFormat("po", "gettext PO, one file per chapter (a workspace: -o DIR/)", _po),
        ExportFormat("tmx", "TMX 1.4 of the reviewed pairs", _document),
    )
}
