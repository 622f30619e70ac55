"""The review queue of a chapter's pending suggestions (section 16, in the workstation): ``sug`` in the state
column, the count in the status line, ``S`` opens the queue; ``a`` / ``x`` / ``e`` decide, each a commit on disk;
``j`` / ``k`` step, ``f`` filters; the last decision goes back to the chapter; and a polish run through the app
that leaves the editor's text alone and suggests instead."""

from __future__ import annotations

import stat
import sys
from pathlib import Path

import pytest
from textual.pilot import Pilot
from textual.widgets import Static, TextArea

from store.loader import load_chapter
from store.model import Paragraph, TranslationVersion
from tests.support.model_server import ModelServer, text_reply
from tests.tui.chapters import write
from tests.tui.conftest import SIZE, Messages, make_app, wait_for, workers_done
from tests.tui.queue_chapters import protected_chapter, queue_chapter
from tui.app import ProofdeskApp
from tui.screens.chapter import ChapterScreen
from tui.screens.choice import ChoiceScreen
from tui.screens.edit import EditScreen
from tui.screens.help import HelpScreen
from tui.screens.suggestions import HINT, SuggestionsScreen
from tui.suggestion_queue import (
    NO_CATEGORY,
    NO_MODEL,
    QueueFilter,
    Suggestion,
    filter_choices,
    filtered,
    pending_count,
    pending_suggestions,
)
from tui.widgets.detail_pane import DetailPane
from tui.widgets.paragraph_table import ParagraphTable
from tui.widgets.suggestion_view import SuggestionView


@pytest.fixture
def queue_path(tmp_path: Path) -> Path:
    """``ws/queue.json``: three pending suggestions ([1], [2], [5]; see ``queue_chapters.queue_chapter``)."""
    folder = tmp_path / "ws"
    folder.mkdir()
    return write(folder / "queue.json", queue_chapter())


def on_disk(path: Path, pid: str) -> Paragraph:
    para = load_chapter(path).paragraph(pid)
    assert para is not None
    return para


def suggestion_of(para: Paragraph) -> TranslationVersion:
    """The paragraph's one suggestion, whatever its status now."""
    [found] = [v for v in para.translations if v.status is not None]
    return found


def chapter_status(screen: ChapterScreen) -> str:
    return str(screen.query_one("#chapter-status", Static).render())


async def open_queue(pilot: Pilot) -> SuggestionsScreen:
    await pilot.press("S")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, SuggestionsScreen), what="the queue")
    queue = pilot.app.screen
    assert isinstance(queue, SuggestionsScreen)
    return queue


def shown(queue: SuggestionsScreen) -> str:
    """Which suggestion is shown: ``1/3 [1]``."""
    item = queue.current
    assert item is not None
    return f"{queue.index + 1}/{len(queue.shown)} [{item.position + 1}]"


def test_the_queue_is_in_chapter_order_with_its_filters() -> None:
    chapter = queue_chapter()
    items = pending_suggestions(chapter)
    assert [(s.position, s.category, s.model, s.outdated) for s in items] == [
        (0, "style", "model-a", False),
        (1, "grammar", "model-b", False),
        (4, "mistranslation", "model-a", True),
    ]
    assert pending_count(chapter) == 3
    choices = filter_choices(items)
    assert [(f.label, n) for f, n in choices][-2:] == [("model model-a", 2), ("model model-b", 1)]
    assert [s.position for s in filtered(items, QueueFilter("model", "model-a"))] == [0, 4]
    bare = items[1].version.replace(category=None, model=None)
    unnamed = Suggestion(1, items[1].paragraph, bare)
    assert (unnamed.category, unnamed.model) == (NO_CATEGORY, NO_MODEL)


async def test_the_detail_pane_steps_to_a_suggestion_with_the_same_diff_rule(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        pane = screen.query_one(DetailPane)
        await pilot.press("right_square_bracket")  # [1]: the suggestion after the selected version
        await wait_for(pilot, lambda: "Diff v1 → v2" in pane.plain, what="the diff")
        assert "v2 · proofreading · model-a · 2026-11-21T10:00:00Z · suggested" in pane.plain
        assert "Diff v1 → v2: This is the firstopening paragraph." in pane.plain  # a word replaced whole
        await pilot.press("g", "5", "enter", "right_square_bracket")  # [5]: from the selected v2 to the suggestion
        await wait_for(pilot, lambda: "Diff v2 → v3" in pane.plain, what="the diff of [5]")
        assert "Diff v2 → v3 · rewritten: " in pane.plain


async def test_the_state_column_and_the_status_line_show_pending_suggestions(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.screen
        assert isinstance(screen, ChapterScreen)
        table = screen.query_one(ParagraphTable)
        assert table.chapter is not None
        states = [table.status_of(p) for p in table.chapter.paragraphs]
        # [2] is reviewed: its pending suggestion shows first
        assert states == ["suggested", "suggested", "empty", "translated", "suggested"]
        await wait_for(pilot, lambda: "3 sug: S" in chapter_status(screen), what="the count in the status line")
        assert "3 sug: S · 4/4 done" in chapter_status(screen)  # the suggestions before the progress (25.12)


async def test_S_shows_one_suggestion_at_a_time_and_j_k_step(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        view = queue.query_one(SuggestionView)
        assert shown(queue) == "1/3 [1]"
        assert queue.status_text == "Suggestion 1/3 · [1] p0000001"
        assert view.plain.splitlines()[:2] == ["style · proofreading · model-a", "Reason: Smoother."]
        assert "Current: This is the first paragraph.\nSuggested: This is the opening paragraph." in view.plain
        assert view.diff is not None and [p for p in view.diff.pieces if p[0] != "equal"] == [
            ("delete", "first"),
            ("insert", "opening"),
        ]
        assert "rewritten" not in view.plain and "outdated" not in view.plain.lower()
        await pilot.press("j")
        assert shown(queue) == "2/3 [2]" and "Reason: (none given)" in view.plain
        await pilot.press("j")
        assert shown(queue) == "3/3 [5]"
        assert view.plain.splitlines()[0] == "mistranslation · proofreading · model-a · rewritten · outdated"
        assert "Current: It rained." in view.plain  # the text selected now, not the one the model read
        await pilot.press("j")
        assert shown(queue) == "1/3 [1]"  # round the queue
        await pilot.press("k")
        assert shown(queue) == "3/3 [5]"
        await pilot.press("question_mark")  # ? lists the queue's keys
        assert isinstance(app.screen, HelpScreen)
        help_text = app.screen.render_help().plain
        for binding_id in ("suggestions.accept", "suggestions.reject", "suggestions.edit", "suggestions.filter"):
            assert binding_id in help_text
        await pilot.press("escape", "escape")
        assert isinstance(app.screen, ChapterScreen)
        assert app.screen.query_one(ParagraphTable).cursor == 4  # on the paragraph seen last


def test_the_queue_lists_its_keys_within_80_columns() -> None:
    assert len(HINT) <= 80


async def test_accept_writes_the_suggestion_selected_accepted_and_reviewed(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: shown(queue) == "1/2 [2]", what="the next suggestion in its place")
        para = on_disk(queue_path, "p0000001")
        suggestion = suggestion_of(para)
        assert para.selected_translation_id == suggestion.id and para.selected_text == "This is the opening paragraph."
        assert suggestion.status == "accepted" and para.reviewed and not para.pending
        assert suggestion.reason == "Smoother." and suggestion.category == "style"


async def test_reject_marks_it_rejected_and_keeps_the_selection(queue_path: Path) -> None:
    before = on_disk(queue_path, "p0000002")
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        await pilot.press("j", "x")
        await wait_for(pilot, lambda: shown(queue) == "2/2 [5]", what="the next suggestion in its place")
        para = on_disk(queue_path, "p0000002")
        assert suggestion_of(para).status == "rejected" and not para.pending
        assert para.selected_translation_id == before.selected_translation_id and para.reviewed


async def test_edit_then_accept_writes_a_manual_version_and_cancel_writes_nothing(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        untouched = queue_path.read_bytes()
        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen), what="the edit modal")
        area = app.screen.query_one(TextArea)
        assert area.text == "This is the opening paragraph."  # the suggestion's text
        await pilot.press("escape")
        assert app.screen is queue
        await workers_done(pilot)
        assert queue_path.read_bytes() == untouched and shown(queue) == "1/3 [1]"

        await pilot.press("e")
        await wait_for(pilot, lambda: isinstance(app.screen, EditScreen), what="the edit modal")
        app.screen.query_one(TextArea).text = "This is the very first paragraph."
        await pilot.press("f2")
        await wait_for(pilot, lambda: shown(queue) == "1/2 [2]", what="the edit saved")
        para = on_disk(queue_path, "p0000001")
        assert para.selected is not None and para.selected.origin == "manual"
        assert para.selected_text == "This is the very first paragraph." and para.reviewed
        assert suggestion_of(para).status == "accepted"


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as $EDITOR")
async def test_E_edits_the_suggestion_in_the_editor_then_accepts_it(
    queue_path: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen = tmp_path / "seen.txt"
    editor = tmp_path / "edit.sh"
    editor.write_text(f'#!/bin/sh\ncp "$1" {seen}\nprintf "The 2nd paragraph, edited.\\n" > "$1"\n', encoding="utf-8")
    editor.chmod(editor.stat().st_mode | stat.S_IXUSR)
    monkeypatch.setenv("VISUAL", str(editor))
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        await pilot.press("j", "E")
        await wait_for(pilot, lambda: shown(queue) == "2/2 [5]", what="the edit saved")
        assert seen.read_text(encoding="utf-8").splitlines()[-1] == "The 2nd paragraph."  # the suggestion's text
        para = on_disk(queue_path, "p0000002")
        assert para.selected is not None and para.selected.origin == "manual" and para.reviewed
        assert para.selected_text == "The 2nd paragraph, edited." and suggestion_of(para).status == "accepted"


async def test_f_filters_by_category_or_model(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        queue = await open_queue(pilot)
        await pilot.press("f")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceScreen), what="the filter choices")
        choice = app.screen
        assert isinstance(choice, ChoiceScreen)
        assert choice.choices == (
            "every suggestion (3)",
            "category style (1)",
            "category grammar (1)",
            "category mistranslation (1)",
            "model model-a (2)",
            "model model-b (1)",
        )
        await pilot.press("j", "j", "j", "j", "enter")  # model model-a
        assert app.screen is queue
        assert queue.status_text == "Suggestion 1/2 (model model-a; 3 in all) · [1] p0000001"
        await pilot.press("j")
        assert shown(queue) == "2/2 [5]"
        await pilot.press("f", "j", "j", "enter")  # category grammar: the one shown is filtered out
        assert shown(queue) == "1/1 [2]"
        await pilot.press("a")  # the filter's last one: the others stay, every suggestion is shown again
        await wait_for(pilot, lambda: len(queue.shown) == 2, what="the queue without the filter")
        assert queue.only is None and shown(queue) == "1/2 [1]"


async def test_deciding_the_last_suggestion_returns_to_the_chapter(queue_path: Path) -> None:
    messages = Messages()
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        chapter = app.screen
        assert isinstance(chapter, ChapterScreen)
        queue = await open_queue(pilot)
        await pilot.press("a")
        await wait_for(pilot, lambda: len(queue.shown) == 2, what="the first decision")
        await pilot.press("x")
        await wait_for(pilot, lambda: len(queue.shown) == 1, what="the second decision")
        await pilot.press("a")
        await wait_for(pilot, lambda: app.screen is chapter, what="the chapter view again")
        assert "No pending suggestions left in this chapter." in messages.notifications()
        await wait_for(pilot, lambda: "sug" not in chapter_status(chapter), what="the count gone")
        table = chapter.query_one(ParagraphTable)
        assert table.chapter is not None and "suggested" not in [table.status_of(p) for p in table.chapter.paragraphs]
        assert table.cursor == 4  # the paragraph decided last
    assert [p.pending for p in load_chapter(queue_path).paragraphs] == [()] * 5


async def test_back_right_after_a_decision_shows_the_chapter_as_the_decision_left_it(queue_path: Path) -> None:
    app = make_app(queue_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        chapter = app.screen
        assert isinstance(chapter, ChapterScreen)
        await open_queue(pilot)
        await pilot.press("a", "escape")  # back while the decision may still be being written
        await wait_for(pilot, lambda: app.screen is chapter, what="the chapter view")
        await wait_for(pilot, lambda: "2 sug: S" in chapter_status(chapter), what="the count after the decision")
        # on [1], or on [2] when the decision was saved (and the next suggestion shown) before escape came
        assert chapter.query_one(ParagraphTable).cursor in (0, 1)
    assert on_disk(queue_path, "p0000001").selected_text == "This is the opening paragraph."


async def test_S_without_pending_suggestions_says_so(review_path: Path) -> None:
    messages = Messages()
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        chapter = app.screen
        await pilot.press("S")
        await wait_for(pilot, lambda: bool(messages.notifications()), what="the answer")
        assert messages.notifications() == ["No pending suggestions in this chapter."]
        assert app.screen is chapter


# -- a polish run through the workstation -------------------------------------------------------------------------


async def test_a_polish_run_suggests_for_the_editors_paragraphs_and_the_queue_decides(
    tmp_path: Path, model_server: ModelServer
) -> None:
    folder = tmp_path / "ws"
    folder.mkdir()
    path = write(folder / "protected.json", protected_chapter())
    items = [
        ("p0000001", "The first paragraph, polished."),
        ("p0000002", "The second paragraph, polished."),
        ("p0000004", "The third paragraph, polished."),
    ]
    # ``reason`` and ``category`` as the polish prompt asks for them; an engine without them ignores the keys.
    batch = [
        {"paragraph_id": pid, "translated_text": text, "reason": "Smoother rhythm.", "category": "style"}
        for pid, text in items
    ]
    model_server.add_tools([("add_translation_batch", {"paragraphs": batch})])
    model_server.add(text_reply("Done."))
    app = make_app(path, watch=False, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        chapter = app.screen
        assert isinstance(chapter, ChapterScreen)
        await pilot.press("p")
        await wait_for(pilot, lambda: (chapter.run_label or "").startswith("last run: complete"), what="the polish")
        first, second, third = load_chapter(path).paragraphs
        # the reviewed and the hand-written paragraph keep their text and state, plus a suggestion each
        assert (first.selected_text, first.reviewed) == ("The first paragraph.", True)
        assert (second.selected_text, second.selected is not None and second.selected.origin) == (
            "My own second paragraph.",
            "manual",
        )
        assert [v.text for v in first.pending] == ["The first paragraph, polished."]
        assert [v.text for v in second.pending] == ["The second paragraph, polished."]
        assert third.selected_text == "The third paragraph, polished." and not third.pending
        suggestion = first.pending[0]
        assert suggestion.based_on == "v0000001" and suggestion.model == "test-model"
        if suggestion.reason is not None:  # once the engine stores them
            assert (suggestion.reason, suggestion.category) == ("Smoother rhythm.", "style")
        await wait_for(pilot, lambda: "2 sug: S" in chapter_status(chapter), what="the count of the suggestions")
        table = chapter.query_one(ParagraphTable)
        await wait_for(pilot, lambda: table.chapter is not None and len(table.chapter.paragraphs[0].pending) == 1)
        assert table.chapter is not None
        # a suggestion waiting outranks "changed by the last run"
        assert [table.status_of(p) for p in table.chapter.paragraphs] == ["suggested", "suggested", "run"]

        await pilot.press("home")
        queue = await open_queue(pilot)
        assert shown(queue) == "1/2 [1]"
        await pilot.press("a")
        await wait_for(pilot, lambda: shown(queue) == "1/1 [2]", what="the acceptance")
        await pilot.press("x")
        await wait_for(pilot, lambda: app.screen is chapter, what="the chapter view again")
        await wait_for(pilot, lambda: "sug" not in chapter_status(chapter), what="the view redrawn")
        # decided: [1] reviewed with the accepted text, [2] looked at (no longer "changed by the last run")
        assert [table.status_of(p) for p in table.chapter.paragraphs] == ["reviewed", "translated", "run"]
    first, second, _ = load_chapter(path).paragraphs
    assert first.selected_text == "The first paragraph, polished." and first.reviewed
    assert suggestion_of(first).status == "accepted"
    assert second.selected_text == "My own second paragraph." and suggestion_of(second).status == "rejected"
    assert not first.pending and not second.pending


def test_the_app_can_remap_the_queue_keys() -> None:
    problems = ProofdeskApp.check_config({"suggestions.accept": "A", "chapter.suggestions": "Q"}, None)
    assert problems == []
