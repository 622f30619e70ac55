"""What the chapter view's status line says, part by part in priority order (pure: no Textual).

The order is the priority (see ``tui.status_fit``): a file that cannot be used, the run's state, its cost, the
search position, the warnings (the demo model, the row filter, the QA warnings), the pending suggestions, the
conflicts; then what the line may drop when the terminal is narrow: the progress, the model, the separators, the
file name and the title, last. Every wording is made safe for a terminal here (a title comes from a file).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from rich.cells import cell_len

from engine.counted import counted
from tui.run_status import RunStatus
from tui.session import ChapterSummary
from tui.status_fit import Part
from tui.terminal_text import visible

NAME_CELLS = 24  # a file name or title shortened to this many characters (then left out)


@dataclass(frozen=True)
class StatusFacts:
    """What the status line is made of, gathered by the chapter view."""

    summary: ChapterSummary
    run: RunStatus
    model: str
    separators: str | None  # the task whose chunks the separators show (None: off)
    search: tuple[str, str] | None = None  # ("search 'gate': 1 of 6", "1 of 6")
    demo: bool = False  # the offline demo model on a chapter that is not its sample
    warnings: Sequence[Part] = field(default_factory=tuple)  # the checks' parts: the filter, the count


def _cut(text: str, cells: int = NAME_CELLS) -> str:
    """``text`` in at most ``cells`` terminal cells, ending with ``…`` when cut."""
    if cell_len(text) <= cells:
        return text
    kept, used = [], 1
    for char in text:
        used += cell_len(char)
        if used > cells:
            break
        kept.append(char)
    return "".join(kept) + "…"


def _safe(part: Part) -> Part:
    return Part(tuple(visible(f, newlines=False) for f in part.forms), part.droppable)


def _problems(s: ChapterSummary) -> list[Part]:
    parts = [Part.of("FILE INVALID ON DISK", "INVALID")] if s.invalid else []
    if s.deleted:
        parts.append(Part.of("FILE DELETED", "DELETED"))
    return parts


def _run(run: RunStatus) -> list[Part]:
    return [Part(forms) for forms in (run.state_words(), run.cost_words()) if forms]


def _attention(facts: StatusFacts) -> list[Part]:
    """The search, the warnings, the suggestions and the conflicts: never left out."""
    s = facts.summary
    parts: list[Part] = []
    if facts.search is not None:
        full, position = facts.search
        parts.append(Part.of(full, f"search: {position}"))
    if facts.demo:
        parts.append(Part.of("DEMO MODEL: writes placeholder text", "DEMO MODEL"))
    parts.extend(facts.warnings)
    if s.suggestions:
        parts.append(Part.of(f"{s.suggestions} sug: S"))
    if s.conflicts:
        parts.append(Part.of(f"{counted(s.conflicts, 'conflict')}: c"))
    return parts


def _context(facts: StatusFacts) -> list[Part]:
    """Where the editor is: what the line drops first, the file name and the title last of all."""
    s = facts.summary
    done = f"{s.translated}/{s.non_empty} done"
    parts = [
        Part.of(f"{done} · {s.reviewed} reviewed", done, droppable=True),
        Part.of(f"model {facts.model}", droppable=True),
        Part.of(f"chunks {facts.separators or 'off'}", droppable=True),
        Part.of(s.path.name, _cut(s.path.name), droppable=True),
    ]
    if s.title:
        parts.append(Part.of(s.title, _cut(s.title), droppable=True))
    return parts


def status_parts(facts: StatusFacts) -> list[Part]:
    """Every part of the status line, in priority order, each wording safe to show."""
    parts = [*_problems(facts.summary), *_run(facts.run), *_attention(facts), *_context(facts)]
    return [_safe(p) for p in parts]
