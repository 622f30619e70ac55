"""How much an import reads and makes: the size of a text read, and the paragraphs of a chapter and of a book.

A text import reads at most ``MAX_INPUT_BYTES`` (256 MiB, the size an EPUB member may have): ``/dev/zero`` or a
runaway pipe is refused instead of read until memory runs out. Design section 21 caps what an import makes: a
chapter (one text, or one EPUB spine document) over 50,000 paragraphs or a book over 200,000 is refused in one
sentence, unless ``--max-paragraphs`` raises the cap (one number for both); each paragraph costs ~2 KB in memory
(a 200 MB text of 2 million lines made a 4.7 GB chapter).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from store.errors import StoreError

MAX_INPUT_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


class InputTooLarge(StoreError):
    """An input over a cap: one sentence naming the file and the cap, nothing made."""


class InputUnreadable(StoreError):
    """An input that cannot be read: one sentence naming the file and why."""


def _too_large(path: Path) -> InputTooLarge:
    return InputTooLarge(
        f"{path}: holds more than {MAX_INPUT_BYTES // (1024 * 1024)} MiB, more than a text import reads"
    )


def read_input(path: Path) -> bytes:
    """The bytes of ``path`` (a file, a pipe or a device), refused past :data:`MAX_INPUT_BYTES`."""
    try:
        with open(path, "rb") as fh:
            st = os.fstat(fh.fileno())
            if stat.S_ISDIR(st.st_mode):
                raise InputUnreadable(f"{path}: is a folder, not a text file")
            if stat.S_ISREG(st.st_mode) and st.st_size > MAX_INPUT_BYTES:
                raise _too_large(path)  # said at once, without reading a byte
            return _read_bounded(fh, path)
    except IsADirectoryError:
        raise InputUnreadable(f"{path}: is a folder, not a text file") from None
    except FileNotFoundError:
        raise InputUnreadable(f"{path}: no such file") from None
    except OSError as exc:
        raise InputUnreadable(f"{path}: cannot be read: {exc.strerror or exc}") from None


def _read_bounded(fh: BinaryIO, path: Path) -> bytes:
    # A pipe or a device has no size to look at: read in chunks and stop once past the cap.
    parts: list[bytes] = []
    total = 0
    while chunk := fh.read(_CHUNK):
        parts.append(chunk)
        total += len(chunk)
        if total > MAX_INPUT_BYTES:
            raise _too_large(path)
    return b"".join(parts)


_RAISE = "raise the cap with --max-paragraphs N"


@dataclass(frozen=True)
class ParagraphLimits:
    """The most paragraphs an import makes: in one chapter (or EPUB document) and in the whole book."""

    chapter: int = 50_000
    book: int = 200_000

    @classmethod
    def at_most(cls, count: int | None) -> ParagraphLimits:
        """The defaults, or ``count`` for both when the person gave one (``--max-paragraphs``)."""
        return cls() if count is None else cls(count, count)

    def check_chapter(self, count: int, where: str, *, split: bool = False) -> None:
        """Refuse a chapter of ``count`` paragraphs made from text (one per line); ``split``: the text was already
        cut at its headings, and this chapter found none to cut it further."""
        if count > self.chapter:
            cut = (
                "mark where its chapters begin with --chapter-pattern REGEX"
                if split
                else "cut the text into chapters at its headings with --split-chapters"
            )
            raise InputTooLarge(
                f"{where}: {count:,} paragraphs is more than the {self.chapter:,} a chapter may have; {cut}, "
                f"or {_RAISE}"
            )

    def check_document(self, count: int, where: str) -> None:
        """Refuse an EPUB spine document of ``count`` text blocks."""
        if count > self.chapter:
            raise InputTooLarge(
                f"{where}: {count:,} blocks is more than the {self.chapter:,} one document may have; {_RAISE}"
            )

    def check_book(self, count: int, where: str) -> None:
        """Refuse a book of ``count`` paragraphs in all."""
        if count > self.book:
            raise InputTooLarge(
                f"{where}: {count:,} paragraphs is more than the {self.book:,} a book may have; import it in "
                f"parts, or {_RAISE}"
            )
