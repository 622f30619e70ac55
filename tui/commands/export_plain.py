"""``proofdesk export --format text|bilingual|markdown``: the selected translations as plain text, for a chapter or
every chapter of a workspace (one file, one file per chapter under ``-o DIR/``, or stdout)."""

from __future__ import annotations

import sys
from pathlib import Path

from store.books.text_export import SUFFIX, Format, render
from store.loader import load_chapter
from tui.cli_errors import EXIT_OK
from tui.commands.export_job import ExportJob
from tui.commands.export_output import folder_targets, target, write_text
from tui.terminal_text import visible


def export_plain(job: ExportJob) -> int:
    """Export the chapters of ``job`` in its plain-text format; the chapter files themselves are only read."""
    files = job.chapter_files()
    out = job.out
    if out is None:
        return to_stdout(_rendered(job, files))
    if job.to_folder:
        return _one_file_each(job, files, out)
    where = target(out, sources=files, force=job.force)  # checked before a chapter is read
    write_text(where, _rendered(job, files))
    return EXIT_OK


_PLAIN: dict[str, Format] = {"text": "text", "bilingual": "bilingual", "markdown": "markdown"}


def _format(job: ExportJob) -> Format:
    return _PLAIN[job.format]


def _rendered(job: ExportJob, files: list[Path]) -> str:
    """Every chapter in the job's format, in order."""
    sep = "\n" if job.format == "markdown" else ""
    return sep.join(render(load_chapter(f), _format(job), job.missing) for f in files)


def to_stdout(text: str) -> int:
    """Write an export to stdout: a terminal would act on control characters in the translations, so it is shown
    them escaped; a file or a pipe gets the text exactly."""
    sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
    sys.stdout.flush()
    return EXIT_OK


def _one_file_each(job: ExportJob, files: list[Path], out: Path) -> int:
    """One file per chapter in the folder ``out``: every target checked before the first is written."""
    names = [path.stem + SUFFIX[_format(job)] for path in files]
    targets = folder_targets(out, names, sources=files, force=job.force)
    for path, where in zip(files, targets, strict=True):
        write_text(where, render(load_chapter(path), _format(job), job.missing))
    print(visible(f"{out}: {len(files)} files", newlines=False), file=sys.stderr)
    return EXIT_OK
