"""What an answer without a tool call says about a chunk: nothing, ``no changes``, the chunk echoed back, or else.

Small models asked to polish often answer with the chunk message itself: its ``[ID: …]`` lines, unchanged. Such an
echo is no work: the loop reminds the model once to submit what it changes or to answer ``no changes``. An answer
is an echo when it names at least one of the chunk's paragraphs as ``[ID: …]`` and what follows each of those
markers (up to the next marker or a blank line) is part of that paragraph's entry in the chunk message, whitespace
ignored: the whole entry, its source or its translation repeated, or nothing at all. ``no changes`` counts only in
the answer's own words, never in lines it copied from the chunk message (which names it).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Literal

TextAnswer = Literal["empty", "no_changes", "echo", "other"]

NO_CHANGES = re.compile(r"\bno\s+(?:further\s+|more\s+|other\s+)?changes?\b", re.IGNORECASE)
_MARKER = re.compile(r"\[\s*ID:\s*([^\]\s]+)\s*\]")
_SPACE = re.compile(r"\s+")
_TRAILING_INDEX = re.compile(r"(?:\[\d+\])+$")  # the next entry's "[n] " before its marker
_MARKUP = re.compile(r"^[*_:\-]+|[*_`]+$")  # "**[ID: …]**", "- [ID: …]:", a closing code fence


def _squeezed(text: str) -> str:
    return _SPACE.sub("", text)


def _blocks(content: str) -> list[tuple[str, str]]:
    """(paragraph_id, squeezed text after its marker) for every ``[ID: …]`` marker of ``content``."""
    markers = list(_MARKER.finditer(content))
    found = []
    for i, marker in enumerate(markers):
        end = markers[i + 1].start() if i + 1 < len(markers) else len(content)
        text = content[marker.end() : end].split("\n\n", 1)[0]
        found.append((marker.group(1), _MARKUP.sub("", _TRAILING_INDEX.sub("", _squeezed(text)))))
    return found


def is_echo(content: str, entries: Mapping[str, str]) -> bool:
    """Whether ``content`` repeats chunk entries (``entries``: paragraph ID -> its entry in the chunk message)
    without changing any of them."""
    blocks = [(pid, text) for pid, text in _blocks(content) if pid in entries]
    return bool(blocks) and all(text in _squeezed(entries[pid]) for pid, text in blocks)


def own_words(content: str, message: str) -> str:
    """The lines of ``content`` that are not lines of the chunk ``message`` (whitespace ignored)."""
    shown = {_squeezed(line) for line in message.splitlines()}
    return "\n".join(line for line in content.splitlines() if _squeezed(line) not in shown)


def classify(content: str | None, entries: Mapping[str, str], revises: bool = True, message: str = "") -> TextAnswer:
    """What an answer without a call says (only a revising chunk's answer can be ``no changes`` or an echo);
    ``message``: the chunk message, whose own words (it names ``no changes``) an echo does not say."""
    text = (content or "").strip()
    if not text:
        return "empty"
    if not revises:
        return "other"
    if NO_CHANGES.search(own_words(text, message)):
        return "no_changes"
    return "echo" if is_echo(text, entries) else "other"


def chunk_entries(paragraph_ids: Sequence[str], entries: Sequence[str]) -> dict[str, str]:
    """Paragraph ID -> its entry in the chunk message."""
    return dict(zip(paragraph_ids, entries, strict=True))
