"""The chapter list's table: one row per chapter file, with the keys a list has.

``Home`` / ``End`` (and ``<`` / ``>``, as in ``less``) move the cursor to the first / last chapter: a
``DataTable`` of rows scrolls sideways on them and leaves the cursor where it was.
"""

from __future__ import annotations

from rich.text import Text
from textual.binding import Binding
from textual.widgets import DataTable


class ChapterTable(DataTable[str | Text]):
    """A row-cursor table whose Home and End go to the first and last row."""

    HELP_GROUP = "Chapter list"
    BINDINGS = [
        Binding("home,less_than_sign", "first_row", "First chapter", show=False, id="list.first"),
        Binding("end,greater_than_sign", "last_row", "Last chapter", show=False, id="list.last"),
    ]

    def action_first_row(self) -> None:
        self.move_cursor(row=0)

    def action_last_row(self) -> None:
        self.move_cursor(row=max(self.row_count - 1, 0))
