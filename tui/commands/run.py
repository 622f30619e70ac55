"""``proofdesk run CHAPTER... --task T``: headless runs with progress on stderr and a summary at the end."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import stat
import sys
from collections.abc import Sequence
from pathlib import Path

from engine import settings
from engine.chunks import TASKS
from engine.config import ModelSettings
from engine.events import EngineEvent, ModelDelta, RunFinished
from engine.run_chapters import run_chapters
from engine.run_request import RunRequest
from engine.summaries import RunSummary
from tui.cli_errors import EXIT_BAD_INPUT, EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, UsageError
from tui.commands.model_flags import add_model_flags, model_settings
from tui.commands.run_workspace import with_previous
from tui.commands.setting_flags import add_setting_flag
from tui.run_progress import PlainProgress, ProgressView, RichProgress, summary_lines
from tui.terminal_text import json_text


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``run`` subcommand."""
    p = subparsers.add_parser(
        "run",
        help="translate, polish or proofread chapters headless",
        description="Run a task over one or more chapters: each chapter is cut into chunks and every chunk goes "
        "through the tool-call loop; accepted batches are committed to the chapter file as they arrive. Exit 0 "
        "when every chunk completed, 1 when something is incomplete or failed, 2 for bad input, 130 cancelled. "
        "A polish or proofread chunk completes only when every paragraph was submitted or the model answered "
        "`no changes`: a model that only repeats the chunk back leaves it incomplete (exit 1), and the summary "
        "counts the paragraphs submitted and changed.",
    )
    p.add_argument("chapters", metavar="CHAPTER", nargs="+", type=Path, help="chapter files")
    p.add_argument("--task", required=True, choices=TASKS)
    add_model_flags(p)
    add_setting_flag(p, settings.CHUNK_CHARS, "chunk budget in characters")
    add_setting_flag(p, settings.MAX_BATCH, "most items per add_translation_batch")
    add_setting_flag(p, settings.MAX_TURNS, "most model turns per chunk")
    add_setting_flag(p, settings.CONTEXT_BEFORE, "paragraphs before each chunk shown to the model for reading")
    add_setting_flag(p, settings.CONTEXT_AFTER, "paragraphs after each chunk shown to the model for reading")
    p.add_argument(
        "--all",
        action="store_true",
        dest="include_all",
        help="translate: also paragraphs that already have a translation",
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "--suggest",
        action="store_false",
        dest="apply",
        default=None,
        help="store every change as a suggestion for `proofdesk review` (the default for proofread)",
    )
    mode.add_argument(
        "--apply",
        action="store_true",
        dest="apply",
        default=None,
        help="select the new texts of paragraphs nobody reviewed or wrote by hand (the default for translate and "
        "polish); reviewed and hand-written paragraphs always get suggestions",
    )
    p.add_argument(
        "--paragraph", metavar="ID", help="run one chunk of just this paragraph (one chapter only), translated or not"
    )
    p.add_argument(
        "--stale",
        action="store_true",
        help="work on exactly the paragraphs whose source changed since their translation was made (translate: "
        "retranslate them)",
    )
    p.add_argument(
        "--instruction",
        metavar="TEXT",
        help="an instruction for the model added to every chunk message, such as 'more formal'",
    )
    p.add_argument(
        "--trace",
        type=Path,
        metavar="PATH",
        help="write the trace here (one chapter only): a new file, or an earlier trace to append to",
    )
    p.add_argument(
        "--force",
        action="store_true",
        help="run even while another run is working on the chapter, and write a read-only chapter",
    )
    add_setting_flag(p, settings.JOBS, "chapters run at once")
    p.add_argument("--json", action="store_true", help="print the events as JSON Lines on stdout")
    p.add_argument(
        "--estimate",
        action="store_true",
        help="send nothing: print the requests, tokens and cost the "
        "run would take, per chunk and in total (an estimate)",
    )
    p.set_defaults(handler=run)


def check_trace_path(path: Path, chapters: Sequence[Path]) -> None:
    """Refuse a ``--trace`` path that appending a trace would damage: a chapter, or any file but a trace.

    A trace is JSON Lines whose first line is a run's event (an object with string ``kind`` and ``run_id``, as
    ``engine.trace.TraceWriter`` writes). A new file, an empty one and a character device (``/dev/null``) pass.
    """
    if any(path.resolve() == Path(c).resolve() for c in chapters):
        raise UsageError(
            f"{path}: --trace names the chapter being run, and a trace appended to it would corrupt it; name a new file"
        )
    st = _stat(path)
    if st is None or stat.S_ISCHR(st.st_mode):
        return
    if not stat.S_ISREG(st.st_mode):
        what = "a folder" if stat.S_ISDIR(st.st_mode) else "not a regular file"
        raise UsageError(f"{path}: cannot be used for the trace: it is {what}")
    if st.st_size and not _starts_like_a_trace(path):
        raise UsageError(
            f"{path}: refusing to append the trace to it: it is not a proofdesk trace (a file of JSON "
            "lines starting with a run's first event); name a new file or an earlier trace"
        )


def _stat(path: Path) -> os.stat_result | None:
    """The trace path's status, None when there is no such file yet."""
    try:
        return os.stat(path)
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be used for the trace: {exc.strerror or exc}") from None


def _starts_like_a_trace(path: Path) -> bool:
    try:
        with open(path, "rb") as f:
            first = json.loads(f.readline(1 << 20))
    except (OSError, ValueError, RecursionError):
        return False
    return isinstance(first, dict) and isinstance(first.get("kind"), str) and isinstance(first.get("run_id"), str)


def _json_line(event: EngineEvent) -> str | None:
    if isinstance(event, ModelDelta):
        return None
    data = event.to_json()
    data.pop("messages", None)  # full request messages live in the trace, not on stdout
    return json_text(data, default=str)  # C1 and bidi controls escaped too: stdout may be a terminal


async def _consume(
    requests: list[RunRequest], jobs: int, view: ProgressView, as_json: bool
) -> tuple[list[RunSummary], bool]:
    """Show the events as they come; Ctrl+C stops the runs, which still report how they ended.

    The first Ctrl+C asks the runs to stop (within a second) and the events go on until every run has emitted
    ``run_finished``; a second Ctrl+C interrupts at once.
    """
    summaries: list[RunSummary] = []
    events = run_chapters(requests, jobs=jobs)
    loop = asyncio.get_running_loop()

    def on_interrupt() -> None:
        events.cancel()
        loop.remove_signal_handler(signal.SIGINT)  # the next Ctrl+C raises KeyboardInterrupt as usual

    with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):  # not the main thread, or no signals
        loop.add_signal_handler(signal.SIGINT, on_interrupt)
    try:
        async for event in events:
            view.update(event)
            if as_json and (line := _json_line(event)) is not None:
                sys.stdout.write(line + "\n")
                sys.stdout.flush()
            if isinstance(event, RunFinished):
                summaries.append(event.summary)
    finally:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.remove_signal_handler(signal.SIGINT)
    return summaries, events.cancelled


def run(args: argparse.Namespace) -> int:
    """Validate everything first (exit 2), then run and report."""
    chapters = with_previous(args.chapters)  # a workspace folder: its chapters in book order
    args.chapters = [path for path, _ in chapters]
    config, model = model_settings(args)
    _check_arguments(args)
    requests = [
        RunRequest.configured(
            path,
            args.task,
            model,
            config.run,
            chunk_chars=args.chunk_chars,
            max_batch=args.max_batch,
            max_turns=args.max_turns,
            include_all=args.include_all,
            trace_path=args.trace,
            only_paragraph=args.paragraph,
            instruction=args.instruction,
            force=args.force,
            apply=args.apply,
            stale=args.stale,
            context_before=args.context_before,
            context_after=args.context_after,
            previous_chapter=previous,
        )
        for path, previous in chapters
    ]
    if args.estimate:
        if args.trace:
            raise UsageError("--estimate sends nothing and writes no trace; leave out --trace")
        from tui.commands.estimate import print_estimates

        return print_estimates(requests, args.json)
    _check_model(model)
    jobs = config.run.jobs if args.jobs is None else args.jobs
    view: ProgressView = RichProgress() if sys.stderr.isatty() else PlainProgress(sys.stderr)
    try:
        with view:
            summaries, cancelled = asyncio.run(_consume(requests, jobs, view, args.json))
    except KeyboardInterrupt:
        print("proofdesk: cancelled; committed batches are kept", file=sys.stderr)
        return EXIT_CANCELLED
    for line in summary_lines(summaries):
        print(line, file=sys.stderr)
    return _exit_code(summaries, cancelled, len(requests))


def _check_model(model: ModelSettings) -> None:
    """A run needs a model someone named; the demo model is only ever used when asked for, and says so."""
    if (reason := model.unnamed_reason()) is not None:
        raise UsageError(reason)
    if model.is_demo:
        print(
            "proofdesk: the demo model writes marked pseudo-translations ([demo …]), not translations",
            file=sys.stderr,
        )


def _check_arguments(args: argparse.Namespace) -> None:
    """Refuse flags that do not go together, and a chapter given twice (exit 2)."""
    one_chapter = len(args.chapters) == 1
    if args.trace and not one_chapter:
        raise UsageError("--trace names one file, so it takes one chapter; leave it out for several chapters")
    if args.trace:
        check_trace_path(args.trace, args.chapters)
    _check_work_set_flags(args, one_chapter)
    seen: set[Path] = set()
    for path in args.chapters:  # a chapter that cannot be loaded is refused by its run: exit 2, one line
        if path.resolve() in seen:
            raise UsageError(f"{path}: given twice")
        seen.add(path.resolve())


def _check_work_set_flags(args: argparse.Namespace, one_chapter: bool) -> None:
    """``--paragraph``, ``--all`` and ``--stale`` each choose the work set; refuse them together."""
    if args.paragraph is not None and not one_chapter:
        raise UsageError("--paragraph names a paragraph of one chapter, so it takes one chapter")
    if args.paragraph is not None and args.include_all:
        raise UsageError("--paragraph runs that paragraph whatever the work set says; leave out --all")
    if args.stale and (args.include_all or args.paragraph is not None):
        raise UsageError("--stale takes exactly the stale paragraphs as the work set; leave out --all and --paragraph")


def _exit_code(summaries: list[RunSummary], cancelled: bool, runs: int) -> int:
    """0 when every chunk of every run completed; 130 cancelled; 2 for bad input or an unusable model; else 1."""
    statuses = {s.status for s in summaries}
    if cancelled or "cancelled" in statuses:
        print("proofdesk: cancelled; committed batches are kept", file=sys.stderr)
        return EXIT_CANCELLED
    if "bad_input" in statuses or any(s.model_unusable for s in summaries):
        return EXIT_BAD_INPUT  # the chapter or the model configuration needs fixing, not a retry
    if statuses - {"complete"} or len(summaries) != runs:
        return EXIT_FAILED
    return EXIT_OK
