"""``proofdesk check CHAPTER|WORKSPACE…``: the QA warnings of chapters, and ``--dismiss`` to dismiss one.

Folders stand for every chapter file in them. INCONSISTENT compares the chapters checked together, so
``check WORKSPACE`` finds a paragraph translated one way in ch01 and another in ch07. Exit 0 when no warning
remains, 1 when some do, 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from engine.checks import CODES, CheckWarning, GlossaryTerm, check_paragraph, check_workspace, dismiss, dismissed_codes
from engine.glossary.run_glossary import RunGlossary
from store.atomic import CommitError
from store.commit import ChapterStore
from store.errors import StoreError
from store.glossary import GlossaryLoadError
from store.glossary_commit import GlossaryStore
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.workspace import Workspace
from tui.cli_errors import EXIT_FAILED, EXIT_OK, UsageError
from tui.commands.chapter_files import chapter_files
from tui.terminal_text import json_text, visible


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``check`` subcommand."""
    p = subparsers.add_parser(
        "check",
        help="print the QA warnings of chapters (kana left, lost quotes, numbers, repetition, …)",
        description="Print the QA warnings of the selected translations, one line each: 'file:[index] id CODE "
        "message'. A folder stands for every chapter file in it; INCONSISTENT compares the chapters checked "
        "together. Dismissed warnings are left out unless --all. Exit 0 when no warning remains, 1 when some "
        "do, 2 for bad input. With --dismiss PARAGRAPH_ID CODE, dismiss that warning for the paragraph's current "
        "texts instead (it comes back when either text changes).",
    )
    p.add_argument("paths", metavar="CHAPTER|WORKSPACE", type=Path, nargs="+", help="chapter files or folders")
    p.add_argument("--json", action="store_true", help="print a JSON list of warnings, each with its 'file'")
    p.add_argument("--codes", metavar="A,B", help=f"only these codes ({', '.join(CODES)})")
    p.add_argument("--all", action="store_true", dest="include_dismissed", help="also the dismissed warnings")
    p.add_argument(
        "--dismiss",
        nargs=2,
        metavar=("PARAGRAPH_ID", "CODE"),
        help="dismiss CODE on the paragraph PARAGRAPH_ID of CHAPTER",
    )
    p.set_defaults(handler=run)


def _code(text: str) -> str:
    code = text.strip().upper()
    if code not in CODES:
        raise UsageError(f"unknown check code {text.strip()!r}; the codes are {', '.join(CODES)}")
    return code


def _codes(text: str | None) -> set[str] | None:
    if text is None:
        return None
    codes = {_code(part) for part in text.split(",") if part.strip()}
    if not codes:
        raise UsageError("--codes names no code")
    return codes


def _glossary_terms(files: list[Path]) -> tuple[GlossaryTerm, ...]:
    """The approved entries of the glossaries beside the chapters (GLOSSARY_NOT_APPLIED); a broken one is exit 2."""
    terms: list[GlossaryTerm] = []
    for folder in dict.fromkeys(f.resolve().parent for f in files):
        try:
            terms += RunGlossary(GlossaryStore(Workspace(folder))).approved_terms()
        except GlossaryLoadError as exc:
            raise UsageError(exc.line) from None
    return tuple(terms)


def run(args: argparse.Namespace) -> int:
    """Print the warnings (or dismiss one); the exit code says whether any remain."""
    codes = _codes(args.codes)
    if args.dismiss is not None:
        return _dismiss_command(args, codes)
    files = chapter_files(args.paths)
    chapters = [load_chapter(f) for f in files]  # a file that is not a chapter: one line, exit 2
    names = [str(f) for f in files]
    results = check_workspace(
        chapters, _glossary_terms(files), names=names, include_dismissed=args.include_dismissed, codes=codes
    )
    report = _Report(as_json=args.json, include_dismissed=args.include_dismissed)
    for name, chapter, warnings in zip(names, chapters, results, strict=True):
        report.add(name, chapter, warnings)
    report.write()
    return EXIT_FAILED if report.remaining else EXIT_OK


@dataclass
class _Report:
    """The warnings printed: one line each, or one JSON list."""

    as_json: bool
    include_dismissed: bool
    remaining: int = 0
    records: list[dict[str, Any]] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)

    def add(self, name: str, chapter: Chapter, warnings: list[CheckWarning]) -> None:
        for w in warnings:
            self._add(name, chapter, w)

    def _add(self, name: str, chapter: Chapter, w: CheckWarning) -> None:
        dismissed = self.include_dismissed and _is_dismissed(chapter, w)
        self.remaining += not dismissed
        if self.as_json:
            record = {"file": name, **w.to_json()}
            if self.include_dismissed:
                record["dismissed"] = dismissed
            self.records.append(record)
        else:
            line = f"{name}:[{w.paragraph_index}] {w.paragraph_id} {w.code} {w.message}"
            self.lines.append(visible(line + (" (dismissed)" if dismissed else ""), newlines=False) + "\n")

    def write(self) -> None:
        sys.stdout.write(json_text(self.records, indent=2) + "\n" if self.as_json else "".join(self.lines))


def _is_dismissed(chapter: Chapter, warning: CheckWarning) -> bool:
    para = chapter.paragraphs[warning.paragraph_index - 1]
    return warning.code in dismissed_codes(para)


def _dismiss_command(args: argparse.Namespace, codes: set[str] | None) -> int:
    if len(args.paths) != 1 or args.paths[0].is_dir() or codes is not None or args.include_dismissed:
        raise UsageError("--dismiss takes one chapter file, without --codes or --all")
    return dismiss_one(args.paths[0], args.dismiss[0], _code(args.dismiss[1]), as_json=args.json)


def _open(path: Path) -> ChapterStore:
    try:
        return ChapterStore(path)
    except CommitError as exc:
        raise UsageError(f"{path}: {exc.reason}") from None


def _seen(path: Path, chapter: Chapter, paragraph_id: str) -> tuple[Paragraph, str]:
    """The paragraph and the translation a dismissal is for (a usage error when there is none)."""
    para = chapter.paragraph(paragraph_id)
    if para is None:
        raise UsageError(f"{path}: no paragraph has the id {paragraph_id!r}")
    if para.selected_text is None:
        raise UsageError(f"{path}: paragraph {paragraph_id} has no translation, so no warning to dismiss")
    return para, para.selected_text


def _store_dismissal(store: ChapterStore, path: Path, paragraph_id: str, code: str, seen: str) -> bool:
    """Commit the dismissal under the file's lock; False (and said on stderr) when it was not saved."""

    def apply(current: Chapter) -> Chapter:
        pos = current.positions.get(paragraph_id)
        if pos is None:
            raise UsageError(f"{path}: paragraph {paragraph_id} was removed meanwhile")
        changed = dismiss(current.paragraphs[pos], code, seen)
        return current if changed is current.paragraphs[pos] else current.with_paragraphs({pos: changed})

    try:
        store.update(apply)
    except StoreError as exc:
        print(visible(f"proofdesk: {path}: the dismissal was not saved: {exc}", newlines=False), file=sys.stderr)
        return False
    return True


def _fires(chapter: Chapter, para: Paragraph, seen: str, code: str) -> bool:
    """Whether ``code`` is found on ``para`` with the translation ``seen`` (INCONSISTENT: taken as found)."""
    if code == "INCONSISTENT":
        return True
    found = check_paragraph(para.text, seen, chapter.source_language, chapter.target_language)
    return any(w.code == code for w in found)


def dismiss_one(path: Path, paragraph_id: str, code: str, *, as_json: bool) -> int:
    """Dismiss ``code`` on one paragraph for its current texts, through a locked commit."""
    store = _open(path)
    chapter = store.load()
    para, seen = _seen(path, chapter, paragraph_id)
    already = code in dismissed_codes(para)
    if not already and not _store_dismissal(store, path, paragraph_id, code, seen):
        return EXIT_FAILED
    index = chapter.positions[paragraph_id] + 1
    if as_json:
        said = {"file": str(path), "paragraph_id": paragraph_id, "paragraph_index": index, "code": code}
        sys.stdout.write(json_text({**said, "dismissed": True, "already": already}, indent=2) + "\n")
    else:
        state = "was already dismissed" if already else "dismissed"
        print(visible(f"{path}:[{index}] {paragraph_id} {code} {state}", newlines=False))
    if not _fires(chapter, para, seen, code):
        print(
            visible(f"proofdesk: note: {code} does not fire on paragraph {paragraph_id} as it is now", newlines=False),
            file=sys.stderr,
        )
    return EXIT_OK
