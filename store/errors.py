"""Errors the store raises; each renders as one line a person can act on."""

from __future__ import annotations


class StoreError(Exception):
    """Base of every error the store raises on purpose."""


class ChapterLoadError(StoreError):
    """A chapter file that cannot be used: names the file, the place and what was expected."""

    def __init__(self, path: str, where: str | None, message: str) -> None:
        self.path = path
        self.where = where
        self.message = message
        super().__init__(self.line)

    @property
    def line(self) -> str:
        """``file:line:col: message`` or ``file: field.path: message`` — always one line."""
        head = f"{self.path}:{self.where}" if self.where and self.where[0].isdigit() else self.path
        if self.where and not self.where[0].isdigit():
            return f"{head}: {self.where}: {self.message}".replace("\n", " ")
        return f"{head}: {self.message}".replace("\n", " ")
