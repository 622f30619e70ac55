"""The glossary's files in and out (``proofdesk glossary import FILE`` / ``export --format``): TSV and CSV tables,
the JSON file itself, and TBX (TBX-Basic, 2019 DCA style out; 2019 and 2008 in: ``store.formats.tbx_*``). TBX terms
carry languages; the glossary's are the workspace's (its first chapter in file-name order that names them)."""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from pathlib import Path

from store.errors import ChapterLoadError, StoreError
from store.glossary import KINDS, Glossary, GlossaryEntry, glossary_bytes, new_entry_id
from store.glossary_read import entry_from
from store.loader import load_chapter
from store.workspace import Workspace
from tui.cli_errors import UsageError

EXPORT_FORMS = ("tsv", "csv", "json", "tbx")


def read_entries(path: Path, workspace: Workspace) -> list[GlossaryEntry]:
    """The new entries of a glossary file to import: TBX by its suffix, else a TSV or CSV table."""
    if path.suffix.lower() == ".tbx":
        return _tbx_entries(path, workspace)
    return read_table(path)


def _tbx_entries(path: Path, workspace: Workspace) -> list[GlossaryEntry]:
    from store.formats.exchange_input import ExchangeError
    from store.formats.tbx_read import read_tbx

    try:
        terms = read_tbx(path, *workspace_languages(workspace))
    except ExchangeError as exc:
        raise UsageError(str(exc)) from None
    return [
        GlossaryEntry(
            id=new_entry_id(),
            source=term.source,
            target=term.target,
            note=term.note,
            aliases=term.aliases,
            target_aliases=term.target_aliases,
            status="approved" if term.target else "proposed",  # a concept without a target yet is to be filled in
            origin="import",
        )
        for term in terms
    ]


def workspace_languages(workspace: Workspace) -> tuple[str | None, str | None]:
    """The source and target languages of the workspace's first chapter that names a source language."""
    for path in workspace.chapter_paths():
        try:
            chapter = load_chapter(path)
        except ChapterLoadError:
            continue
        if chapter.source_language:
            return chapter.source_language, chapter.target_language
    return None, None


def read_table(path: Path) -> list[GlossaryEntry]:
    """The entries of a TSV or CSV file: columns source, target, note, kind (by a header row or in that order).

    A GalTransl dictionary (``source<TAB>target<TAB>note``, ``//`` comments) reads as is. Raises UsageError naming
    the line of a bad row.
    """
    comma = path.suffix.lower() == ".csv"
    rows = csv.reader(
        io.StringIO(_utf8_text(path)),
        delimiter="," if comma else "\t",
        quoting=csv.QUOTE_MINIMAL if comma else csv.QUOTE_NONE,
    )
    try:
        return _entries_of(rows, path)
    except csv.Error as exc:
        raise UsageError(f"{path}:{rows.line_num}: {_csv_problem(exc)}") from None


def _entries_of(rows: Iterable[list[str]], path: Path) -> list[GlossaryEntry]:
    columns = ["source", "target", "note", "kind"]
    entries: list[GlossaryEntry] = []
    for number, row in enumerate(rows, 1):
        cells = [c.strip() for c in row]
        if not any(cells) or cells[0].startswith(("//", "#")):
            continue
        if number == 1 and cells[0].casefold() == "source":
            columns = [c.casefold() for c in cells]
            continue
        entries.append(_entry_of(dict(zip(columns, cells, strict=False)), f"{path}:{number}"))
    return entries


def _csv_problem(exc: csv.Error) -> str:
    if "field larger than field limit" in str(exc):
        return f"a cell is longer than {csv.field_size_limit():,} characters, the most a glossary table cell may hold"
    return f"not a readable table row ({exc})"


def _utf8_text(path: Path) -> str:
    from store.input_limits import read_input

    try:
        return read_input(path).decode("utf-8-sig")
    except StoreError as exc:
        raise UsageError(str(exc)) from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text (byte {exc.start})") from None


def _entry_of(values: dict[str, str], where: str) -> GlossaryEntry:
    """A new imported entry from one row's cells by column name; ``where`` (file:line) names a bad row."""
    if not values.get("source") or not values.get("target"):
        raise UsageError(f"{where}: a row needs a source and a target")
    kind = values.get("kind") or "term"
    if kind not in KINDS:
        raise UsageError(f"{where}: kind must be one of {', '.join(KINDS)}, not {kind!r}")
    return entry_from(
        {
            "id": new_entry_id(),
            "source": values["source"],
            "target": values["target"],
            "note": values.get("note", ""),
            "kind": kind,
            "origin": "import",
        }
    )


def export_text(glossary: Glossary, form: str, workspace: Workspace) -> str:
    """The glossary as TSV, CSV (columns source, target, note, kind), the JSON file itself, or TBX."""
    if form == "json":
        return glossary_bytes(glossary).decode("utf-8")
    if form == "tbx":
        from store.formats.tbx_write import tbx_bytes

        return tbx_bytes(glossary, *workspace_languages(workspace)).decode("utf-8")
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t" if form == "tsv" else ",", lineterminator="\n", quoting=csv.QUOTE_MINIMAL)
    writer.writerow(["source", "target", "note", "kind"])
    for e in glossary.entries:
        writer.writerow([e.source, e.target, " ".join(e.note.split()), e.kind])
    return out.getvalue()
