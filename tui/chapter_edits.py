"""What the chapter view's review and edit keys do: edit a translation (in place or in ``$EDITOR``), step through
and select versions, mark reviewed, jump to the next paragraph that needs review.

The keys stay the screen's (their order in the footer and in help is the screen's); each action is one call here.
Every change is one store commit in a thread (:meth:`ChapterEdits.commit`), then one redraw.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from engine.counted import counted
from store.edits import needs_review
from store.errors import StoreError
from store.model import Chapter, Paragraph
from tui.session import EditRefused
from tui.terminal_text import visible
from tui.widgets.detail_pane import viewed_index

if TYPE_CHECKING:
    from tui.screens.chapter import ChapterScreen


class ChapterEdits:
    """The review and edit actions of one chapter view."""

    def __init__(self, screen: ChapterScreen) -> None:
        self.screen = screen

    def current(self) -> Paragraph | None:
        """The paragraph under the cursor (None, and said, in a chapter without paragraphs)."""
        para = self.screen.table.current_paragraph
        if para is None:
            self.screen.notify("This chapter has no paragraphs.", severity="warning")
        return para

    def commit(self, change: Callable[..., Chapter], *args: Any, done: str | None = None) -> None:
        """Run one store commit in a thread, then show the chapter it wrote."""
        screen = self.screen

        async def commit() -> None:
            try:
                await asyncio.to_thread(change, *args)
            except (EditRefused, StoreError, OSError) as exc:
                screen.log_pane.add_notice(f"not saved: {exc}", error=True)
                screen.notify(visible(f"Not saved: {exc}"), severity="error", timeout=6, markup=False)
                return
            if done:
                screen.log_pane.add_notice(done)
            screen.refresh_view()

        screen.run_worker(commit(), group="commit")

    def _save_manual(self, para: Paragraph, text: str, how: str = "") -> None:
        if text.strip() and text != para.selected_text:
            self.commit(
                self.screen.session.edit_translation,
                para.id,
                text,
                done=f"[{self.screen.table.cursor + 1}] {para.id}: saved a manual version{how}",
            )

    def edit(self) -> None:
        para = self.current()
        if para is None:
            return
        if para.is_empty:
            self.screen.notify("Empty paragraphs are not translated.", severity="warning")
            return

        def save(text: str | None) -> None:
            if text is not None:
                self._save_manual(para, text)

        from tui.screens.edit import EditScreen  # the editor widget loads with the first edit, not at start-up

        self.screen.app.push_screen(
            EditScreen(
                f"Edit the translation of [{self.screen.table.cursor + 1}] {para.id}",
                para.selected_text or "",
                source=para.text,
            ),
            save,
        )

    def edit_external(self) -> None:
        para = self.current()
        if para is None or para.is_empty:
            return
        edited = self._edit_in_editor(para)
        if edited is not None:
            text, editor = edited
            self._save_manual(para, text, f" from {editor}")

    def _edit_in_editor(self, para: Paragraph) -> tuple[str, str] | None:
        """The text the person wrote in $EDITOR and the editor's name; None (and said) when it failed."""
        from tui.screens.edit import EditorFailed, edit_in_editor

        try:
            return edit_in_editor(self.screen.app, para.selected_text or "", hint=para.id, source=para.text)
        except EditorFailed as exc:
            self.screen.notify(visible(str(exc)), severity="error", markup=False)
            return None

    def version(self, step: int) -> None:
        para = self.current()
        if para is None or not para.translations:
            return
        current = viewed_index(para, self.screen.viewed_version)
        self.screen.viewed_version = min(max(current + step, 0), len(para.translations) - 1)
        self.screen.update_detail()

    def select_version(self) -> None:
        screen = self.screen
        para = self.current()
        if para is None or screen.viewed_version is None or not para.translations:
            return
        number = screen.viewed_version + 1
        version = para.translations[screen.viewed_version]
        if version.id == para.selected_translation_id:
            screen.notify("That version is already selected.")
            return
        screen.viewed_version = None
        self.commit(
            screen.session.select_version,
            para.id,
            version.id,
            done=f"[{screen.table.cursor + 1}] {para.id}: selected v{number} ({version.origin})",
        )

    def _reviewable(self) -> Paragraph | None:
        """The paragraph under the cursor if it has a translation to review (else says so)."""
        para = self.current()
        if para is not None and (para.is_empty or para.selected_translation_id is None):
            self.screen.notify("Nothing to review: this paragraph has no translation.", severity="warning")
            return None
        return para

    def toggle_reviewed(self) -> None:
        para = self._reviewable()
        if para is not None:
            self.commit(self.screen.session.set_reviewed, para.id, not para.reviewed)

    def review_and_next(self) -> None:
        screen = self.screen
        para = self._reviewable()
        if para is None:
            return
        if not para.reviewed:
            self.commit(screen.session.set_reviewed, para.id, True)
        if warnings := screen.warnings.of(para):
            # Marking reviewed does not settle warnings: the paragraph still needs review until they go.
            screen.notify(
                f"[{screen.table.cursor + 1}] still has {counted(len(warnings), 'warning')}: d dismisses, e edits.",
                timeout=3,
                markup=False,
            )
        self.next_review(1)

    def next_review(self, step: int) -> None:
        screen = self.screen
        chapter = screen.session.chapter
        if chapter is None or not chapter.paragraphs:
            return
        conflicts, warned = screen.session.conflict_ids, screen.warnings.ids
        n = len(chapter.paragraphs)
        for k in range(1, n + 1):
            pos = (screen.table.cursor + step * k) % n
            if screen.table.is_shown(pos) and needs_review(chapter.paragraphs[pos], conflicts, warned):
                screen.table.move_to(pos)
                return
        screen.notify("Nothing left to review.")
