"""``proofdesk glossary [WORKSPACE] ACTION``: list, add, approve, remove, import, export and extract glossary terms.

The workspace is a folder (default: the current one) or a chapter file (its folder). Every change is one locked,
atomic commit merged onto ``glossary.json`` as it is on disk (``store.glossary_commit``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from engine.glossary.extract import Candidate, extract_candidates
from store.errors import ChapterLoadError, StoreError
from store.glossary import KINDS, GlossaryEntry, GlossaryEntryError, GlossaryLoadError, new_entry_id
from store.glossary_commit import (
    GlossaryConflict,
    GlossaryEditError,
    GlossaryStore,
    add_entries,
    add_entry,
    approve_entries,
    remove_entries,
)
from store.glossary_read import entry_from
from store.loader import load_chapter
from store.workspace import Workspace
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.glossary_files import EXPORT_FORMS, export_text, read_entries
from tui.commands.text_args import text_arg
from tui.terminal_text import json_text, visible

ACTIONS = ("list", "add", "approve", "remove", "import", "export", "extract")


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``glossary`` subcommand."""
    p = subparsers.add_parser(
        "glossary",
        help="list and edit the workspace glossary (names and terms kept consistent across chapters)",
        description="proofdesk glossary [WORKSPACE] ACTION ...  —  actions: list [--json] [--status S]; add SOURCE "
        "TARGET [--kind K] [--note N] [--alias A]... [--target-alias T]... [--gender G]; approve ID...; remove ID...; "
        "import FILE (TSV or CSV: source, target, note[, kind]; a GalTransl dictionary works as is; or TBX, 2019 or "
        "2008: the source term is the one in the workspace's source language); export [--format tsv|csv|json|tbx] "
        "[-o FILE [--force]] (never onto a chapter, a glossary or .proofdesk/; an existing file only with --force); "
        "extract CHAPTER... [--min-count N] [--add] (prints the candidates; --add adds them as "
        'proposed, origin "extract"). WORKSPACE is a folder or a chapter file (its folder); default: the current '
        "folder.",
    )
    p.add_argument("words", nargs=argparse.REMAINDER, metavar="[WORKSPACE] ACTION ...")
    p.set_defaults(handler=run)


def _actions() -> argparse.ArgumentParser:
    from tui.cli import _Parser  # the CLI's parser: a usage error is exit 2 and one line

    parser = _Parser(prog="proofdesk glossary", add_help=False)
    sub = parser.add_subparsers(dest="action", required=True, parser_class=_Parser)
    listing = sub.add_parser("list")
    listing.add_argument("--json", action="store_true")
    listing.add_argument("--status", choices=("approved", "proposed"))
    add = sub.add_parser("add")
    add.add_argument("source", type=text_arg)
    add.add_argument("target", type=text_arg)
    add.add_argument("--kind", choices=KINDS, default="term")
    add.add_argument("--note", type=text_arg, default="")
    add.add_argument("--alias", type=text_arg, action="append", default=[])
    add.add_argument("--target-alias", type=text_arg, action="append", default=[])
    add.add_argument("--gender", choices=("female", "male", "other"))
    for name in ("approve", "remove"):
        sub.add_parser(name).add_argument("ids", nargs="+", metavar="ID")
    sub.add_parser("import").add_argument("file", type=Path)
    export = sub.add_parser("export")
    export.add_argument("--format", choices=EXPORT_FORMS, default="tsv")
    export.add_argument("-o", "--output", type=Path)
    export.add_argument("--force", action="store_true")
    extract = sub.add_parser("extract")
    extract.add_argument("chapters", nargs="+", type=Path, metavar="CHAPTER")
    extract.add_argument("--min-count", type=int, default=2)
    extract.add_argument("--add", action="store_true")
    return parser


def _store(words: list[str]) -> tuple[GlossaryStore, list[str]]:
    if words and words[0] not in ACTIONS:
        place = Path(words[0])
        if not place.exists():
            raise UsageError(f"{place}: no such folder or chapter file (or not an action: {', '.join(ACTIONS)})")
        root = place if place.is_dir() else place.parent
        return GlossaryStore(Workspace(root)), words[1:]
    return GlossaryStore(Workspace(Path.cwd())), words


def run(args: argparse.Namespace) -> int:
    """Carry out one action."""
    store, words = _store(list(args.words))
    if not words:
        raise UsageError(f"glossary: name an action: {', '.join(ACTIONS)}")
    action = _actions().parse_args(words)
    try:
        return _ACTIONS[action.action](store, action)
    except GlossaryLoadError as exc:
        raise UsageError(exc.line) from None
    except (GlossaryConflict, GlossaryEditError) as exc:
        raise UsageError(f"{store.path.name}: {exc}") from None
    except StoreError as exc:
        raise UsageError(str(exc)) from None


def _say(text: str) -> None:
    sys.stdout.write(visible(text) + "\n")


def _list(store: GlossaryStore, args: argparse.Namespace) -> int:
    entries = [e for e in store.load().entries if args.status in (None, e.status)]
    if args.json:
        sys.stdout.write(json_text([e.to_json() for e in entries], indent=2) + "\n")
        return EXIT_OK
    if not entries:
        _say(f"{store.path}: no entries")
    for e in entries:
        extra = f"  ({e.note})" if e.note else ""
        _say(f"{e.id}  {e.status:8}  {e.kind:16}  {e.source} → {e.target}{extra}")
    return EXIT_OK


def _add(store: GlossaryStore, args: argparse.Namespace) -> int:
    try:
        entry = entry_from(
            {
                "id": new_entry_id(),
                "source": args.source.strip(),
                "target": args.target.strip(),
                "kind": args.kind,
                "note": args.note,
                "aliases": [a for a in args.alias if a.strip()],
                "target_aliases": [a.strip() for a in args.target_alias if a.strip()],
                "gender": args.gender,
            }
        )
    except GlossaryEntryError as exc:
        raise UsageError(f"glossary add: {exc.line}") from None
    before = store.load().by_source(entry.source)
    kept = store.change(add_entry(entry)).by_source(entry.source) or entry
    there = before is not None and before.target.strip() != ""
    _say(f"{store.path.name}: {'already there' if there else 'added'}: {kept.line()}")
    return EXIT_OK


def _approve(store: GlossaryStore, args: argparse.Namespace) -> int:
    store.change(approve_entries(args.ids))
    _say(f"{store.path.name}: approved {len(set(args.ids))} entr{'y' if len(set(args.ids)) == 1 else 'ies'}")
    return EXIT_OK


def _remove(store: GlossaryStore, args: argparse.Namespace) -> int:
    store.change(remove_entries(args.ids))
    _say(f"{store.path.name}: removed {len(set(args.ids))} entr{'y' if len(set(args.ids)) == 1 else 'ies'}")
    return EXIT_OK


def _import(store: GlossaryStore, args: argparse.Namespace) -> int:
    incoming = read_entries(args.file, store.workspace)
    before = len(store.load().entries)
    after = len(store.change(add_entries(incoming)).entries)
    _say(
        f"{store.path.name}: imported {after - before} of {len(incoming)} entries from {args.file.name} "
        f"({len(incoming) - (after - before)} with a source already in the glossary were left as they are)"
    )
    return EXIT_OK


def _export(store: GlossaryStore, args: argparse.Namespace) -> int:
    if args.output is None:
        text = export_text(store.load(), args.format, store.workspace)
        sys.stdout.write(visible(text) if sys.stdout.isatty() else text)
        return EXIT_OK
    from tui.commands.export_output import target, write_text

    where = target(args.output, sources=[store.path], force=args.force)
    write_text(where, export_text(store.load(), args.format, store.workspace))
    _say(f"wrote {args.output}")
    return EXIT_OK


def _extract(store: GlossaryStore, args: argparse.Namespace) -> int:
    """Print the candidates (with counts); only ``--add`` writes the new ones, as proposed from ``extract``."""
    if args.min_count < 1:
        raise UsageError("--min-count must be a whole number from 1 up")
    candidates = extract_candidates(_chapter_texts(args.chapters), min_count=args.min_count)
    known = store.load()
    fresh = [c for c in candidates if known.by_source(c.source) is None]
    new = {c.source for c in fresh}
    for c in candidates:
        _say(f"{c.count:6}  {c.kind:9}  {c.source}{'' if c.source in new else '  (in the glossary)'}")
    there = f"{len(candidates) - len(fresh)} already in the glossary"
    if not args.add:
        _say(
            f"{len(candidates)} candidates ({there}); nothing written: --add adds the {len(fresh)} new ones as "
            f'proposed (origin "extract")'
        )
        return EXIT_OK
    store.change(add_entries(_candidate_entry(c) for c in fresh))
    _say(
        f"{store.path.name}: {len(fresh)} candidates added as proposed (targets to fill in); {there}. In the "
        "workstation, G then / extract and M marks them all to approve (v) or remove (d) at once"
    )
    return EXIT_OK


def _chapter_texts(paths: list[Path]) -> list[str]:
    texts: list[str] = []
    for path in paths:
        try:
            texts += [p.text for p in load_chapter(path).paragraphs]
        except ChapterLoadError as exc:
            raise UsageError(exc.line) from None
    return texts


def _candidate_entry(candidate: Candidate) -> GlossaryEntry:
    """A candidate as a glossary entry: proposed, no target yet, ``origin: "extract"`` (taken or dropped in bulk)."""
    return entry_from(
        {
            "id": new_entry_id(),
            "source": candidate.source,
            "target": "",
            "kind": candidate.kind,
            "note": f"found {candidate.count} times",
            "status": "proposed",
            "origin": "extract",
        }
    )


_ACTIONS = {
    "list": _list,
    "add": _add,
    "approve": _approve,
    "remove": _remove,
    "import": _import,
    "export": _export,
    "extract": _extract,
}
