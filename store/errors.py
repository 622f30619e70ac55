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

    @classmethod
    def unreadable(cls, path: object, exc: OSError) -> ChapterLoadError:
        """The error for a chapter file that cannot be read: missing, a folder, or an I/O error."""
        said = _UNREADABLE.get(type(exc)) or f"cannot be read: {exc.strerror or exc}"
        return cls(str(path), None, said)

    @property
    def line(self) -> str:
        """``file:line:col: message`` or ``file: field.path: message`` — always one line."""
        head = f"{self.path}:{self.where}" if self.where and self.where[0].isdigit() else self.path
        if self.where and not self.where[0].isdigit():
            return f"{head}: {self.where}: {self.message}".replace("\n", " ")
        return f"{head}: {self.message}".replace("\n", " ")


_UNREADABLE: dict[type[OSError], str] = {
    FileNotFoundError: "no such file",
    IsADirectoryError: "is a folder, not a chapter file",
}
