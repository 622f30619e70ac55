"""``proofdesk review CHAPTER|WORKSPACE…``: the pending suggestions, and the editor's decisions about them.

Without a decision it lists the pending suggestions in chapter order (``--json``: one list). ``--accept ID…``,
``--reject ID…`` and ``--accept-all`` / ``--reject-all`` (filtered by ``--category`` / ``--model``) decide. Every ID
is resolved on every chapter before anything is written: if one names no pending suggestion, no file is written
and exit 1. Then each chapter with decisions is one locked, atomic commit. Exit 2 for bad input.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from store.atomic import CommitError
from store.commit import ChapterStore
from store.errors import StoreError
from store.loader import load_chapter
from store.model import CATEGORIES, Chapter
from store.review_decisions import Decision, ReviewPlan, ReviewRequest, Target, apply_decisions, plan_review
from store.suggestions import PendingSuggestion, pending_suggestions
from tui.cli_errors import EXIT_BAD_INPUT, EXIT_FAILED, EXIT_OK, UsageError
from tui.commands.chapter_files import chapter_files
from tui.terminal_text import json_text, visible


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``review`` subcommand."""
    p = subparsers.add_parser(
        "review",
        help="list the pending suggestions of chapters, accept or reject them",
        description="List the pending suggestions in chapter order, one block each: 'file:[index] paragraph_id "
        "version_id category model task', the reason, the selected text now and the suggested one; '(outdated)' "
        "when the selection changed since the model read the paragraph. A folder stands for every chapter file in "
        "it. --accept / --reject take version IDs, or paragraph IDs (that paragraph's newest pending suggestion); "
        "put them after the files. Accepting selects the suggestion and marks the paragraph reviewed; rejecting "
        "changes nothing else. An ID given wins over --accept-all / --reject-all. If any ID names no pending "
        "suggestion, nothing is written and the exit code is 1; 2 for bad input.",
    )
    p.add_argument("paths", metavar="CHAPTER|WORKSPACE", type=Path, nargs="+", help="chapter files or folders")
    p.add_argument("--json", action="store_true", help="print one JSON list (of the suggestions, or the decisions)")
    p.add_argument("--accept", metavar="ID", nargs="+", action="extend", default=[], help="accept these suggestions")
    p.add_argument("--reject", metavar="ID", nargs="+", action="extend", default=[], help="reject these suggestions")
    bulk = p.add_mutually_exclusive_group()
    bulk.add_argument("--accept-all", action="store_true", help="accept every pending suggestion (see the filters)")
    bulk.add_argument("--reject-all", action="store_true", help="reject every pending suggestion (see the filters)")
    p.add_argument("--category", choices=CATEGORIES, help="with --accept-all / --reject-all: only this category")
    p.add_argument("--model", metavar="M", help="with --accept-all / --reject-all: only this model's suggestions")
    p.add_argument("--force", action="store_true", help="write read-only chapter files anyway")
    p.set_defaults(handler=run)


def _request(args: argparse.Namespace) -> ReviewRequest:
    if (args.category is not None or args.model is not None) and not (args.accept_all or args.reject_all):
        raise UsageError("--category and --model filter --accept-all or --reject-all: give one of them")
    return ReviewRequest(
        accept=tuple(args.accept),
        reject=tuple(args.reject),
        accept_all=args.accept_all,
        reject_all=args.reject_all,
        category=args.category,
        model=args.model,
    )


def run(args: argparse.Namespace) -> int:
    """List the pending suggestions, or apply the decisions asked for."""
    request = _request(args)
    files = chapter_files(args.paths)
    if request.accept or request.reject or request.accept_all or request.reject_all:
        return decide(files, request, as_json=args.json, force=args.force)
    return list_pending(files, as_json=args.json)


# -- listing --------------------------------------------------------------------------------------------------


def _block(name: str, s: PendingSuggestion) -> str:
    head = f"{name}:[{s.paragraph_index}] {s.paragraph_id} {s.version_id} {s.category or '-'} {s.model or '-'} {s.task}"
    lines = [head + (" (outdated)" if s.outdated else "")]
    if s.reason is not None:
        lines.append(f"  reason: {s.reason}")
    lines.append(f"  now: {s.selected_text}" if s.selected_text is not None else "  now: (no translation)")
    lines.append(f"  new: {s.text}")
    # One line per field whatever the texts hold: a line break in a text is shown as \n.
    return "".join(visible(line, newlines=False) + "\n" for line in lines)


def list_pending(files: Sequence[Path], *, as_json: bool) -> int:
    """Print every pending suggestion of ``files`` in chapter order; exit 0."""
    found = [(str(f), s) for f in files for s in pending_suggestions(load_chapter(f))]
    if as_json:
        sys.stdout.write(json_text([{"file": name, **s.to_json()} for name, s in found], indent=2) + "\n")
        return EXIT_OK
    sys.stdout.write("\n".join(_block(name, s) for name, s in found))
    if not found:
        print("proofdesk: no pending suggestions", file=sys.stderr)
    return EXIT_OK


# -- deciding -------------------------------------------------------------------------------------------------


def _open(path: Path, *, force: bool) -> ChapterStore:
    try:
        return ChapterStore(path, allow_read_only=force)
    except CommitError as exc:
        raise UsageError(f"{path}: {exc.reason}") from None


def _where(names: Sequence[str], places: Sequence[tuple[int, int]]) -> str:
    return f" ({', '.join(f'{names[c]}:[{index}]' for c, index in places)})" if places else ""


def _refusal(names: Sequence[str], plan: ReviewPlan) -> int | None:
    """Say on stderr, one line each, why nothing can be written; the exit code, or None when the plan is clear."""
    if plan.clear:
        return None
    lines = [f"{u.given}: {u.why}{_where(names, u.places)}" for u in plan.unresolved]
    lines += [
        f"{t.version_id}{_where(names, [(t.chapter, t.paragraph_index)])}: both accepted and rejected"
        for t in plan.contradicted
    ]
    for line in lines:
        print(visible(f"proofdesk: {line}; nothing was written", newlines=False), file=sys.stderr)
    return EXIT_BAD_INPUT if plan.contradicted else EXIT_FAILED


def _refuse_read_only(stores: Sequence[ChapterStore]) -> None:
    """A read-only file refuses before any file is written."""
    for store in stores:
        try:
            store.check_writable()
        except CommitError as exc:
            raise UsageError(str(exc)) from None


def decide(files: Sequence[Path], request: ReviewRequest, *, as_json: bool, force: bool) -> int:
    """Resolve ``request`` on every chapter first; when it is clear, commit each chapter's decisions."""
    stores = [_open(f, force=force) for f in files]
    chapters = [store.load() for store in stores]  # a file that is not a chapter: one line, exit 2
    names = [str(f) for f in files]
    plan = plan_review(chapters, request)
    refused = _refusal(names, plan)
    if refused is not None:
        return refused
    touched = [c for c in range(len(files)) if plan.of_chapter(c)]
    _refuse_read_only([stores[c] for c in touched])
    outcome = _Outcome(as_json=as_json)
    for c in touched:
        outcome.commit(names[c], stores[c], plan.of_chapter(c))
    outcome.write(decided_nothing=not touched)
    return EXIT_FAILED if outcome.failed else EXIT_OK


def _status(chapter: Chapter, target: Target) -> str | None:
    para = chapter.paragraph(target.paragraph_id)
    version = None if para is None else next((v for v in para.translations if v.id == target.version_id), None)
    return None if version is None else version.status


@dataclass
class _Outcome:
    """What the commits did: a summary line per chapter on stderr, and the decisions as JSON with ``--json``."""

    as_json: bool
    failed: bool = False
    records: list[dict[str, Any]] = field(default_factory=list)

    def commit(self, name: str, store: ChapterStore, decisions: tuple[Decision, ...]) -> None:
        try:
            after = store.update(lambda chapter: apply_decisions(chapter, decisions))
        except StoreError as exc:
            self.failed = True
            print(visible(f"proofdesk: {name}: nothing was saved: {exc}", newlines=False), file=sys.stderr)
            return
        statuses = [_status(after, d.target) for d in decisions]
        self.records += [_record(name, d, status) for d, status in zip(decisions, statuses, strict=True)]
        print(visible(_summary(name, decisions, statuses), newlines=False), file=sys.stderr)

    def write(self, *, decided_nothing: bool) -> None:
        if decided_nothing:
            print("proofdesk: no pending suggestion matches; nothing was written", file=sys.stderr)
        if self.as_json:
            sys.stdout.write(json_text(self.records, indent=2) + "\n")


def _record(name: str, decision: Decision, status: str | None) -> dict[str, Any]:
    t = decision.target
    return {
        "file": name,
        "paragraph_index": t.paragraph_index,
        "paragraph_id": t.paragraph_id,
        "version_id": t.version_id,
        "status": status,
    }


def _summary(name: str, decisions: Sequence[Decision], statuses: Sequence[str | None]) -> str:
    """``accepted 2, rejected 1 in ch01.json``, and how many someone else changed meanwhile (theirs stays)."""
    done = [d.verdict for d, status in zip(decisions, statuses, strict=True) if status == d.verdict]
    line = f"accepted {done.count('accepted')}, rejected {done.count('rejected')} in {name}"
    other = len(decisions) - len(done)
    return line + (f"; {other} changed by someone else meanwhile, left as they are" if other else "")
