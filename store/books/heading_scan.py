"""A person's ``--chapter-pattern`` evaluated under a time limit.

Python's ``re`` backtracks: ``^(\\S+\\s?)+章$`` never finishes on a 40-character line, and patterns without any
nested repeat blow up too (``\\S*\\S*\\S*章$`` took 4.4 s on one 2,000-character line; novels have thousands of
such lines), so no check of the pattern's form can tell a safe one. The matching runs in a forked process that is
killed when the time is up: a thread cannot be stopped, and ``re`` holds the GIL while it matches. Forking costs
~0.5 s with 2 million lines in memory (nothing is copied); a plain pattern scans those lines in ~0.2 s.
"""

from __future__ import annotations

import multiprocessing
import re
from collections.abc import Sequence
from multiprocessing.connection import Connection

from store.books.epub_safety import BookError


class PatternTooSlow(BookError):
    """The pattern did not finish in its time: one sentence, nothing made."""


def time_limit(line_count: int) -> float:
    """Seconds a pattern may take on ``line_count`` lines: 2 s, plus 1 s per 100,000 lines."""
    return 2.0 + line_count / 100_000


def _is_heading(line: str, pattern: re.Pattern[str]) -> bool:
    stripped = line.strip()
    return bool(stripped) and pattern.match(stripped) is not None


def _scan(lines: Sequence[str], pattern: re.Pattern[str], out: Connection) -> None:
    out.send([n for n, line in enumerate(lines) if _is_heading(line, pattern)])
    out.close()


def heading_lines(lines: Sequence[str], pattern: re.Pattern[str], *, seconds: float | None = None) -> list[int]:
    """The indexes of the ``lines`` that ``pattern`` matches at their start (surrounding spaces stripped).

    Raises :class:`PatternTooSlow` when that takes longer than ``seconds`` (default: :func:`time_limit`).
    Where processes cannot be forked the pattern runs here, without a limit.
    """
    limit = time_limit(len(lines)) if seconds is None else seconds
    try:
        context = multiprocessing.get_context("fork")
    except ValueError:
        return [n for n, line in enumerate(lines) if _is_heading(line, pattern)]
    receive, send = context.Pipe(duplex=False)
    worker = context.Process(target=_scan, args=(lines, pattern, send), daemon=True)
    worker.start()
    send.close()
    try:
        if not receive.poll(limit):
            raise PatternTooSlow(
                f"--chapter-pattern {pattern.pattern!r} did not finish within {limit:g} seconds on this text; "
                r"simplify it (a repeat inside a repeat such as (\S+\s?)+, or repeats that can match the same "
                "characters, try ever more ways to match a long line)"
            )
        found: list[int] = receive.recv()
    except EOFError:
        raise BookError(f"--chapter-pattern {pattern.pattern!r} could not be evaluated (its process ended)") from None
    finally:
        worker.kill()
        worker.join()
        receive.close()
    return found
