"""The detail pane under the paragraph table: full source and translation, the versions, and a diff.

The diff compares the version being viewed (stepped with ``[`` / ``]``) with the one before it, character
by character. Long texts are diffed in a thread worker so the cursor never waits for ``SequenceMatcher``.
Everything from the chapter file (IDs, texts, models, timestamps) is shown with control characters escaped.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual import work
from textual.binding import Binding
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip

from store.model import Paragraph, TranslationVersion
from tui.terminal_text import visible
from tui.widgets.char_diff import Piece, char_diff
from tui.widgets.paragraph_rows import STATUS_LABEL, STATUS_MEANING, Status

_INLINE_DIFF_CHARS = 1500  # longer pairs are diffed in a thread


def version_label(number: int, version: TranslationVersion, selected: bool) -> str:
    """``v2 polish · deepseek-chat · 2026-11-21T10:00:00Z (selected)``."""
    parts = [f"v{number}", version.origin]
    if version.model:
        parts.append(version.model)
    parts.append(version.created_at)
    return visible(" · ".join(parts), newlines=False) + (" (selected)" if selected else "")


class DetailPane(ScrollView, can_focus=True):
    """Everything about the paragraph under the cursor; scrolls when focused.

    A Line API widget: the text is wrapped to the pane's width here, so showing another paragraph redraws
    the pane without a layout pass of the whole screen (cursor moves stay cheap).
    """

    BINDINGS = [
        Binding("up,k", "scroll_up", "Scroll up", show=False, id="detail.up"),
        Binding("down,j", "scroll_down", "Scroll down", show=False, id="detail.down"),
    ]

    COMPONENT_CLASSES = {
        "detail-pane--heading",
        "detail-pane--muted",
        "detail-pane--insert",
        "detail-pane--delete",
        "detail-pane--selected",
        "detail-pane--viewed",
    }

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self._token = 0  # bumped on every show(), so a late diff for another paragraph is dropped
        self._text = Text()
        self._lines: list[Strip] = []
        self._width = 0

    @property
    def plain(self) -> str:
        """The text shown, without styles (for tests and copying)."""
        return self._text.plain

    def _set(self, text: Text) -> None:
        self._text = text
        self._layout_lines()
        self.scroll_to(y=0, animate=False)

    def _layout_lines(self) -> None:
        width = max(self.scrollable_content_region.width, 10)
        self._width = width
        console = self.app.console
        lines = self._text.wrap(console, width, overflow="fold")
        self._lines = [Strip(line.render(console)) for line in lines]
        self.virtual_size = Size(width, len(self._lines))
        self.refresh()

    def on_resize(self) -> None:
        if self.scrollable_content_region.width != self._width:
            self._layout_lines()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        base = self.rich_style
        row = round(self.scroll_y) + y
        if row >= len(self._lines):
            return Strip.blank(width, base)
        return self._lines[row].apply_style(base).crop_extend(0, width, base)

    def action_scroll_up(self) -> None:
        self.scroll_to(y=self.scroll_y - 1, animate=False)

    def action_scroll_down(self) -> None:
        self.scroll_to(y=self.scroll_y + 1, animate=False)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"detail-pane--{name}")

    def show(self, para: Paragraph | None, position: int, status: Status, viewed: int | None) -> None:
        """Show ``para``; ``viewed`` is the 0-based index of the version being looked at (None: selected)."""
        self._token += 1
        if para is None:
            self._set(Text("No paragraph.", style=self._style("muted")))
            return
        versions = para.translations
        if viewed is None or not 0 <= viewed < len(versions):
            viewed = next((i for i, v in enumerate(versions) if v.id == para.selected_translation_id),
                          len(versions) - 1)
        heading, muted = self._style("heading"), self._style("muted")
        meaning = STATUS_MEANING.get(status, "empty paragraph")
        text = Text(end="")
        text.append(f"[{position + 1}] {visible(para.id, newlines=False)} · {STATUS_LABEL[status] or 'empty'} "
                    f"({meaning})", heading)
        text.append("\nSource: ", heading)
        text.append(visible(para.text) if para.text else "(empty)")
        if not versions:
            text.append("\nNo translation yet.", muted)
            self._set(text)
            return
        version = versions[viewed]
        text.append(f"\nTranslation {version_label(viewed + 1, version, version.id == para.selected_translation_id)}: ",
                    heading)
        text.append(visible(version.text))
        pending: tuple[str, str] | None = None
        if viewed > 0:
            old, new = versions[viewed - 1].text, version.text
            text.append(f"\nDiff v{viewed} → v{viewed + 1}: ", heading)
            if len(old) + len(new) <= _INLINE_DIFF_CHARS:
                self._append_diff(text, char_diff(old, new))
            else:
                text.append("(computing…)", muted)
                pending = (old, new)
        tail = self._versions(para, viewed)
        if pending is not None:
            self._diff_later(text.copy(), tail, *pending, self._token)
        self._set(text + tail)

    def _versions(self, para: Paragraph, viewed: int) -> Text:
        text = Text(end="")
        text.append(f"\nVersions ({len(para.translations)}): [ ] step · enter selects", self._style("heading"))
        for i, v in enumerate(para.translations):
            marker = "▶" if i == viewed else " "
            selected = v.id == para.selected_translation_id
            style = self._style("viewed") if i == viewed else (
                self._style("selected") if selected else self._style("muted"))
            text.append(f"\n{marker} {version_label(i + 1, v, selected)}", style)
        return text

    def _append_diff(self, text: Text, pieces: list[Piece]) -> None:
        insert, delete = self._style("insert"), self._style("delete")
        if not pieces:
            text.append("(no change)", self._style("muted"))
        for op, chunk in pieces:  # diffed as they are, shown escaped (each control escapes on its own)
            text.append(visible(chunk), insert if op == "insert" else delete if op == "delete" else Style())

    @work(thread=True, exclusive=True, group="detail-diff", description="character diff")
    def _diff_later(self, text: Text, tail: Text, old: str, new: str, token: int) -> None:
        pieces = char_diff(old, new)
        text.right_crop(len("(computing…)"))
        self._append_diff(text, pieces)
        self.app.call_from_thread(self._finish_diff, text + tail, token)

    def _finish_diff(self, text: Text, token: int) -> None:
        if token == self._token:
            self._set(text)
