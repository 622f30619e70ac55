"""Text answers: ``[ID: xxxxxxxx] translation`` lines a model wrote instead of calling a tool (design section 19).

An ID line starts (after an optional ``-``/``*`` bullet, ``**`` and the ``[index]`` the chunk shows) with
``[ID: …]`` — spaces inside the brackets allowed, an optional ``:`` after them and an optional ``Translation:``
before the text. An item's text runs from its ID line to the next ID line, blank line or code fence line, joined
with ``\\n``; lines before the first ID line are ignored, never assigned to a paragraph. An item written as a
revising chunk shows its entries (``Source: …`` then a ``Translation: …`` line) is its translation part, and the
chunk's own mark of a protected paragraph is not part of any text. An item whose text only says there is no change
(``No changes.``, ``(unchanged)``) is no text: it is left out, never submitted as one. Pure: what the items are
submitted as, and how, is the loop's (``engine/text_submission.py``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from engine.chunks import PROTECTED_MARK

_ID_LINE = re.compile(
    r"""^\s*(?P<lead>(?:[-*]\s+)?(?:\*\*\s*)?(?:\[\s*\d+\s*\]\s*)?(?:\*\*\s*)?)
    \[\s*ID\s*:\s*(?P<id>[^\]\s]+)\s*\]
    (?P<close>\s*:?\s*\*\*)?\s*:?\s*(?:translation\s*:\s*)?(?P<text>.*)$""",
    re.IGNORECASE | re.VERBOSE,
)
_FENCE = re.compile(r"^\s*```")
_NO_CHANGE = re.compile(
    r"\W*(?:no (?:changes?|edits?|corrections?)(?: (?:needed|required|made|necessary))?|unchanged)\W*", re.IGNORECASE
)
_SOURCE_LABEL = re.compile(r"(?:\*\*)?source\s*:", re.IGNORECASE)
_TRANSLATION_LINE = re.compile(r"^[ \t]*(?:\*\*)?translation\s*:\s*(?:\*\*)?[ \t]*", re.IGNORECASE | re.MULTILINE)
MAX_ANSWER_CHARS = 2_000_000  # the tools' own argument limit: a longer answer is not read as items


@dataclass(frozen=True, slots=True)
class TextItem:
    """One paragraph's text as the model wrote it on ``[ID: …]`` lines."""

    paragraph_id: str
    text: str


def text_items(content: str) -> list[TextItem] | None:
    """The items of a text answer in the order written, or None when ``content`` holds no ``[ID: …]`` line (it is
    not a text answer). Items are not checked here: an unknown, repeated or blank one is the batch's to refuse."""
    if len(content) > MAX_ANSWER_CHARS:
        return None
    read: list[tuple[str, list[str]]] = []  # (paragraph_id, its lines), in the order written
    reading = False  # whether the lines that follow still belong to the last item
    for line in content.splitlines():
        reading = _read_line(line, read, reading)
    items = [TextItem(pid, _as_shown(lines)) for pid, lines in read]
    return [item for item in items if _NO_CHANGE.fullmatch(item.text) is None] or None


def _as_shown(lines: list[str]) -> str:
    """An item's text: its lines without the chunk's protected mark, and of an entry written as a revising chunk
    shows it (``Source: …`` / ``Translation: …``), the translation part."""
    text = "\n".join(line for line in lines if line.strip() != PROTECTED_MARK).strip()
    if _SOURCE_LABEL.match(text) and (translation := _TRANSLATION_LINE.search(text)) is not None:
        return text[translation.end() :].strip()
    return text


def _read_line(line: str, read: list[tuple[str, list[str]]], reading: bool) -> bool:
    """Add ``line`` to what was read: a new item, or a line of the item being read; whether one is read after it."""
    found = _ID_LINE.match(line)
    if found is not None:
        read.append((found["id"], [_first_text(found)]))
        return True
    if not reading or _ends_item(line):
        return False
    read[-1][1].append(line.rstrip())
    return True


def _first_text(found: re.Match[str]) -> str:
    """The text on the ID line itself, without the ``**`` that closes a bold opened before the ID."""
    text = found["text"].rstrip()
    opened = found["lead"].count("**") % 2 == 1 and found["close"] is None
    if opened and text.endswith("**"):
        text = text[:-2].rstrip()
    return text


def _ends_item(line: str) -> bool:
    """A blank line or a code fence line ends the item being read."""
    return not line.strip() or _FENCE.match(line) is not None
