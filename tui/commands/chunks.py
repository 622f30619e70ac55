"""``proofdesk chunks CHAPTER --task T``: print the chunks exactly as the model gets them."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from engine.chunk_context import ChunkContext, ContextSettings, chunk_context
from engine.chunks import TASKS, Chunk, TaskType, build_chunks
from engine.config import Config, ConfigError, load_config
from engine.settings import CHUNK_CHARS, CONTEXT_AFTER, CONTEXT_BEFORE
from store.loader import load_chapter
from tui.cli_errors import EXIT_OK, UsageError
from tui.commands.setting_flags import add_setting_flag
from tui.terminal_text import json_text, visible


def add_chunk_flags(parser: argparse.ArgumentParser, *, task_required: bool) -> None:
    """``--task``, ``--chunk-chars`` and ``--all``, shared by ``chunks`` and ``tool``."""
    parser.add_argument(
        "--task", choices=TASKS, required=task_required, help="which work set the chunks are built from"
    )
    add_setting_flag(parser, CHUNK_CHARS, "chunk budget in characters")
    parser.add_argument(
        "--all",
        action="store_true",
        dest="include_all",
        help="translate: also paragraphs that already have a translation",
    )


def user_config() -> Config:
    """The config file (run defaults), with problems turned into exit 2."""
    try:
        return load_config()
    except ConfigError as exc:
        raise UsageError(str(exc)) from None


def chunks_for(path: Path, task: TaskType, chunk_chars: int | None, include_all: bool) -> list[Chunk]:
    """The chunks a run would build from the file as it is now."""
    chapter = load_chapter(path)
    budget = chunk_chars if chunk_chars is not None else user_config().run.chunk_chars
    return build_chunks(chapter, task, chunk_chars=budget, include_all=include_all)


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``chunks`` subcommand."""
    p = subparsers.add_parser(
        "chunks",
        help="print the chunks exactly as the model gets them",
        description="Print the chunk texts a run of TASK would send to the model, built from the file as it is "
        "now: each chunk after a heading line such as '── chunk 2/5 · 7 paragraphs · [14]–[27] ──', or with "
        "--json a list of {index, paragraph_ids, text}.",
    )
    p.add_argument("chapter", metavar="CHAPTER", type=Path, help="the chapter file")
    add_chunk_flags(p, task_required=True)
    add_setting_flag(p, CONTEXT_BEFORE, "paragraphs before each chunk shown to the model for reading")
    add_setting_flag(p, CONTEXT_AFTER, "paragraphs after each chunk shown to the model for reading")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON list of {index, paragraph_ids, text, context_before, context_after}",
    )
    p.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    """Print the chunks with their context lines; the chapter file is only read."""
    chunks = chunks_for(args.chapter, args.task, args.chunk_chars, args.include_all)
    settings = _context_settings(args)
    contexts = [chunk_context(c.chapter, c, settings) for c in chunks]
    if args.json:
        listed = [_chunk_json(c, ctx) for c, ctx in zip(chunks, contexts, strict=True)]
        sys.stdout.write(json_text(listed, indent=2) + "\n")
        return EXIT_OK
    if not chunks:
        print(visible(f"proofdesk: {args.chapter}: no paragraphs to {args.task}", newlines=False), file=sys.stderr)
        return EXIT_OK
    out = [
        "\n\n".join(filter(None, (ctx.before_section(), c.text, ctx.after_section())))
        for c, ctx in zip(chunks, contexts, strict=True)
    ]
    shown = [f"{c.heading()}\n{text}\n" for c, text in zip(chunks, out, strict=True)]
    sys.stdout.write(visible("\n".join(shown)))  # human output: a chapter's control characters shown escaped
    return EXIT_OK


def _context_settings(args: argparse.Namespace) -> ContextSettings:
    run = user_config().run
    before = run.context_before if args.context_before is None else args.context_before
    after = run.context_after if args.context_after is None else args.context_after
    return ContextSettings(before, after, run.context_chars)


def _chunk_json(chunk: Chunk, context: ChunkContext) -> dict[str, Any]:
    return {
        **chunk.to_json(),
        "context_before": [line.to_json() for line in context.before],
        "context_after": [line.to_json() for line in context.after],
    }
