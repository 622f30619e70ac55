"""One pending suggestion as the review queue shows it: what the model said about it, the source, and the current
text and the suggestion with what changed marked (the diff rule of :mod:`tui.text_diff`).

The current text shows what the suggestion deletes, the suggestion what it inserts, each in full: both stay
readable, and the change is seen on both sides. Everything from the chapter file or the model (IDs, texts, the
reason, the category, the model's name) is shown with markup off and control characters escaped.
"""

from __future__ import annotations

from rich.style import Style
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from tui.suggestion_queue import Suggestion
from tui.terminal_text import visible
from tui.text_diff import Op, TextDiff, text_diff


class SuggestionView(VerticalScroll):
    """The suggestion under review, scrolled as a whole when it is longer than the screen."""

    COMPONENT_CLASSES = {
        "suggestion-view--heading",
        "suggestion-view--muted",
        "suggestion-view--label",
        "suggestion-view--insert",
        "suggestion-view--delete",
    }

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.diff: TextDiff | None = None  # of the suggestion shown, against the current text
        self.plain = ""  # the text shown, without styles (for tests)

    def compose(self) -> ComposeResult:
        yield Static("", id="suggestion-text", markup=False)

    def _style(self, name: str) -> Style:
        return self.get_component_rich_style(f"suggestion-view--{name}")

    def show(self, item: Suggestion | None, *, empty: str = "No pending suggestions.") -> None:
        """Show ``item`` (None: the sentence ``empty``)."""
        if item is None:
            self.diff = None
            text = Text(empty, self._style("muted"), end="")
        else:
            current = item.paragraph.selected_text
            self.diff = text_diff(current or "", item.version.text)
            text = Text(end="")
            for part in (self._about(item), self._reason(item), self._source(item), self._texts(current)):
                text.append_text(part)
        self.plain = text.plain
        self.query_one("#suggestion-text", Static).update(text)
        self.scroll_home(animate=False)

    def _about(self, item: Suggestion) -> Text:
        """``grammar · proofreading · gpt-4o`` and the labels ``rewritten`` and ``outdated``."""
        about = visible(f"{item.category} · {item.version.origin} · {item.model}", newlines=False)
        text = Text(about, self._style("heading"))
        labels = [name for name, on in (("rewritten", self.diff_rewritten), ("outdated", item.outdated)) if on]
        for label in labels:
            text.append(" · ", self._style("muted"))
            text.append(label, self._style("label"))
        text.append("\n")
        return text

    @property
    def diff_rewritten(self) -> bool:
        """More than half of the text changed."""
        return self.diff is not None and self.diff.rewritten

    def _reason(self, item: Suggestion) -> Text:
        text = Text()
        text.append("Reason: ", self._style("heading"))
        reason = item.version.reason
        text.append(visible(reason) if reason else "(none given)", None if reason else self._style("muted"))
        text.append("\n")
        if item.outdated:
            text.append("Outdated: the selected text changed after the model read it.\n", self._style("label"))
        return text

    def _source(self, item: Suggestion) -> Text:
        text = Text()
        text.append("Source: ", self._style("heading"))
        text.append(visible(item.paragraph.text) if item.paragraph.text else "(empty)")
        text.append("\n\n")
        return text

    def _texts(self, current: str | None) -> Text:
        """The current text with what the suggestion deletes marked, then the suggestion with what it inserts."""
        assert self.diff is not None
        text = Text(end="")
        text.append("Current: ", self._style("heading"))
        if current is None:
            text.append("(no translation yet)", self._style("muted"))
        else:
            self._marked(text, "delete")
        text.append("\n")
        text.append("Suggested: ", self._style("heading"))
        self._marked(text, "insert")
        return text

    def _marked(self, text: Text, changed: Op) -> None:
        """One side of the diff: the equal pieces plain, the ``changed`` ones in their style."""
        assert self.diff is not None
        style = self._style(changed)
        for op, chunk in self.diff.pieces:
            if op == "equal" or op == changed:
                text.append(visible(chunk), style if op == changed else None)
