"""``proofdesk tool CHAPTER NAME [ARGS]``: call one tool and print its JSON result.

Without ``--chunk`` nothing is restricted (standalone use). With ``--chunk K`` the chunks are built from
the file as it is now (``--task``, ``--chunk-chars``, ``--all``) and chunk K's paragraph IDs become the
call's boundaries, exactly as in a run. ``add_translation_batch`` commits to the file like a run does,
with origin ``manual`` unless ``--origin`` says otherwise.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path

from engine.glossary.run_glossary import RunGlossary
from engine.glossary.tools import with_glossary
from engine.scope import ChunkScope
from engine.settings import CHUNK_NUMBER, MAX_BATCH
from engine.tools import default_registry
from store.atomic import CommitError
from store.commit import ChapterStore
from store.glossary import GlossaryLoadError
from store.glossary_commit import GlossaryStore
from store.model import ORIGINS
from store.workspace import Workspace
from tui.cli_errors import EXIT_FAILED, EXIT_OK, UsageError
from tui.commands.chunks import add_chunk_flags, chunks_for, user_config
from tui.commands.setting_flags import add_setting_flag, setting_type
from tui.terminal_text import json_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``tool`` subcommand."""
    names = ", ".join((*default_registry().names, "search_glossary", "propose_glossary_entry"))
    p = subparsers.add_parser(
        "tool",
        help="call one tool with JSON arguments and print its JSON result",
        description=f"Call one tool ({names}) on a chapter and print its JSON result. --chunk K applies chunk "
        "K's boundaries (chunks built from the file as it is now with --task, --chunk-chars and --all). "
        "add_translation_batch commits to the file like a run does. Exit 0 success, 1 tool error, 2 bad input.",
    )
    p.add_argument("chapter", metavar="CHAPTER", type=Path, help="the chapter file")
    p.add_argument("name", metavar="NAME", help="the tool's name")
    p.add_argument(
        "arguments",
        metavar="ARGS",
        nargs="?",
        default="{}",
        help="the arguments as one JSON object (default {}); '-' reads them from stdin",
    )
    p.add_argument(
        "--chunk",
        type=setting_type(CHUNK_NUMBER),
        metavar="K",
        help="apply chunk K's boundaries (1-based; needs --task)",
    )
    add_chunk_flags(p, task_required=False)
    p.add_argument(
        "--origin",
        choices=ORIGINS,
        default="manual",
        help="origin of versions add_translation_batch creates (default manual)",
    )
    add_setting_flag(p, MAX_BATCH, "most items per add_translation_batch")
    p.add_argument("--force", action="store_true", help="let add_translation_batch write a read-only chapter")
    p.set_defaults(handler=run)


def _store(args: argparse.Namespace) -> ChapterStore:
    """The chapter's store; a chapter that cannot be opened or loaded is bad input (exit 2), not a tool error."""
    try:
        store = ChapterStore(args.chapter, allow_read_only=args.force)
    except CommitError as exc:
        raise UsageError(f"{args.chapter}: {exc.reason}") from None
    store.load()
    return store


def _scope(args: argparse.Namespace, store: ChapterStore) -> ChunkScope:
    """Chunk K's scope with ``--chunk K`` (built as a run builds it, bases included), else an unbounded one."""
    if args.chunk is None:
        return ChunkScope.standalone(store, task=args.task, origin=args.origin, max_batch=_max_batch(args))
    chunks = chunks_for(args.chapter, args.task, args.chunk_chars, args.include_all)
    if not 1 <= args.chunk <= len(chunks):
        have = f"has {len(chunks)} chunk{'s' if len(chunks) != 1 else ''}" if chunks else "has no chunks"
        raise UsageError(f"--chunk {args.chunk} is out of range: the {args.task} work set of {args.chapter} {have} now")
    return ChunkScope.for_chunk(chunks[args.chunk - 1], store, origin=args.origin, max_batch=_max_batch(args))


def _max_batch(args: argparse.Namespace) -> int:
    return int(args.max_batch or user_config().run.max_batch)


def run(args: argparse.Namespace) -> int:
    """Call the tool; print the result on stdout; exit 0 on success, 1 on a tool error."""
    raw = sys.stdin.read() if args.arguments == "-" else args.arguments
    if args.chunk is not None and args.task is None:
        raise UsageError("--chunk needs --task, which decides the work set the chunks are built from")
    store = _store(args)
    scope = _scope(args, store)
    try:
        glossary = RunGlossary(GlossaryStore(Workspace.for_chapter(args.chapter)))
    except GlossaryLoadError as exc:
        raise UsageError(exc.line) from None
    registry = with_glossary(default_registry(), glossary)
    result = asyncio.run(registry.call(args.name, raw, scope)).result
    sys.stdout.write(json_text(result, indent=2) + "\n")
    return EXIT_OK if result.get("success") is True else EXIT_FAILED
