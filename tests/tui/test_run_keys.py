"""The chapter view's run keys as an editor uses them: mark-and-next, retranslating, asking the model about one
paragraph, a run with nothing to do, leaving a chapter while its run goes on, and the run's progress."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.events import BatchCommitted, ChunkStarted, ModelRequest, ModelResponse, RunFinished, RunStarted
from engine.summaries import RunSummary
from store.loader import load_chapter
from tests.support.model_server import ModelServer, Scripted, sse, text_reply, tool_chunks, tool_reply
from tests.tui.chapters import review_chapter, write
from tests.tui.conftest import SIZE, Messages, make_app, screen_text, wait_for
from tui.run_status import RunStatus
from tui.screens.ask import AskScreen
from tui.screens.chapter import ChapterScreen
from tui.widgets.detail_pane import DetailPane
from tui.widgets.log_pane import LogPane
from tui.widgets.paragraph_table import ParagraphTable


def chapter_screen(app: object) -> ChapterScreen:
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, ChapterScreen)
    return screen


async def test_mark_and_next_in_one_key(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        table = chapter_screen(app).query_one(ParagraphTable)
        await pilot.press("n")
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000002"
        await pilot.press("a")  # p2 marked, the cursor on the next one to review (p4 is reviewed: skipped)
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000005"
        await wait_for(
            pilot,
            lambda: load_chapter(review_path).paragraph("p0000002").reviewed,  # type: ignore[union-attr]
            what="p2 marked on disk",
        )
        await pilot.press("a")
        await wait_for(
            pilot,
            lambda: load_chapter(review_path).paragraph("p0000005").reviewed,  # type: ignore[union-attr]
            what="p5 marked on disk",
        )


async def test_a_run_with_nothing_to_do_says_so_and_changes_nothing(review_path: Path) -> None:
    chapter = review_chapter()
    done = chapter.with_paragraphs(
        {
            0: chapter.paragraphs[1].replace(id="p0000001", text="一つ目の段落です。"),
            5: chapter.paragraphs[3].replace(id="p0000006", text="六つ目。"),
        }
    )
    write(review_path, done)
    before = review_path.read_bytes()
    app = make_app(review_path, watch=False)
    messages = Messages()
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        screen = chapter_screen(app)
        screen.session.run_changed.add("p0000002")  # the markers of an earlier run
        await pilot.press("t")
        await wait_for(
            pilot, lambda: any("Nothing to translate" in n for n in messages.notifications()), what="the refusal"
        )
        assert (
            "Nothing to translate: every paragraph has a translation already (u retranslates every paragraph)."
            in messages.notifications()
        )
        assert not screen.run_in_progress and screen.run_label is None
        assert screen.session.run_changed == {"p0000002"}  # the last run's markers stay
    assert review_path.read_bytes() == before


async def test_retranslate_the_chapter_and_the_chunk_at_the_cursor(review_path: Path) -> None:
    app = make_app(review_path, watch=False)  # the offline demo model
    async with app.run_test(size=SIZE) as pilot:
        screen = chapter_screen(app)
        await pilot.press("down", "U")  # the chunk of p2 (all five paragraphs fit one chunk)
        await wait_for(pilot, lambda: screen.run_label.startswith("last run: complete"), what="the chunk run")
        after = load_chapter(review_path)
        texts = {p.id: p.selected_text for p in after.paragraphs}
        assert texts["p0000002"] == "[demo en] 二つ目の段落です。"  # translated again, though it had a translation
        # p4 is reviewed: the editor's text stays, the model's is a suggestion
        assert texts["p0000004"] == "The fourth paragraph."
        assert [v.text for v in after.paragraph("p0000004").pending] == ["[demo en] 四つ目の段落です。"]  # type: ignore[union-attr]
        assert len(after.paragraph("p0000002").translations) == 3  # type: ignore[union-attr]
        await pilot.press("u")
        await wait_for(
            pilot,
            lambda: screen.run_label.startswith("last run: complete") and not screen.run_in_progress,
            what="the chapter run",
        )


@pytest.mark.slow
async def test_ask_the_model_about_one_translated_paragraph(review_path: Path, model_server: ModelServer) -> None:
    model_server.add(
        tool_reply(
            [
                (
                    "add_translation_batch",
                    {
                        "paragraphs": [
                            {"paragraph_id": "p0000005", "translated_text": "This is, formally, the fifth paragraph."}
                        ]
                    },
                )
            ]
        )
    )
    model_server.add(text_reply("Done."))
    app = make_app(review_path, watch=False, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=(120, 40)) as pilot:
        screen = chapter_screen(app)
        await pilot.press("g", *"5", "enter")  # translated, not reviewed (a reviewed one gets a suggestion)
        await pilot.press("A")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the form")
        await pilot.press("shift+tab", "enter", "up", "enter", "tab")  # the task: polish (offered) -> translate
        await pilot.press(*"more formal", "enter")
        await wait_for(pilot, lambda: screen.run_label.startswith("last run: complete"), what="the one-paragraph run")
        user = json.loads(model_server.requests[0].body)["messages"][1]["content"]
        assert "[ID: p0000005]" in user and "[ID: p0000004]" not in user  # one paragraph, already translated
        assert "The editor's instruction for this work: more formal" in user
        para = load_chapter(review_path).paragraph("p0000005")
        assert para is not None and para.selected_text == "This is, formally, the fifth paragraph."
        assert para.selected is not None and para.selected.origin == "translation"  # the task picked in the form
        await pilot.pause()
        table = screen.query_one(ParagraphTable)
        assert table.current_paragraph is not None and table.current_paragraph.id == "p0000005"
        shown = screen.query_one(DetailPane).plain
        assert "Diff v1 → v2" in shown and "formally" in shown  # the new version with its diff


async def test_leaving_a_chapter_keeps_its_run_log_and_progress(small_path: Path, model_server: ModelServer) -> None:
    body = sse(tool_chunks([("add_translation_batch", {"paragraphs": []})]))
    model_server.add(Scripted(200, {"content-type": "text/event-stream"}, body, split=20, hang_after=40))
    app = make_app(small_path, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        screen = chapter_screen(app)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(model_server.requests), what="the request")
        await wait_for(
            pilot,
            lambda: (screen.run_label or "").startswith("running translate · chunk 1/1"),
            what="the progress in the status line",
        )
        pane = screen.query_one(LogPane)
        await wait_for(pilot, lambda: bool(pane.visible_entries), what="the log")
        logged = [e.text for e in pane.visible_entries]
        await pilot.press("b")
        assert app.screen is not screen and screen.run_in_progress
        await pilot.press("enter")
        assert app.screen is screen and screen.run_in_progress
        assert [e.text for e in pane.visible_entries][: len(logged)] == logged  # the log survived
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")


async def test_the_separators_show_the_runs_own_chunks_while_it_goes(
    small_path: Path, model_server: ModelServer
) -> None:
    # The first batch commits a0000001; the run's chunk still holds it (the work set would not any more).
    model_server.add(
        tool_reply(
            [("add_translation_batch", {"paragraphs": [{"paragraph_id": "a0000001", "translated_text": "One."}]})]
        )
    )
    body = sse(tool_chunks([("add_translation_batch", {"paragraphs": []})]))
    model_server.add(Scripted(200, {"content-type": "text/event-stream"}, body, split=20, hang_after=40))
    app = make_app(small_path, watch=False, base_url=model_server.base_url, model="test-model")
    async with app.run_test(size=SIZE) as pilot:
        screen = chapter_screen(app)
        table = screen.query_one(ParagraphTable)
        await pilot.press("t")
        await wait_for(pilot, lambda: "a0000001" in screen.session.run_changed, what="the first commit")
        chunk = table.model.chunk_of(0)
        assert chunk is not None and chunk.paragraph_ids == ("a0000001", "a0000003", "a0000004")
        await pilot.press("x")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run to stop")
        await wait_for(pilot, lambda: table.model.chunk_of(0) is None, what="the separators of the work set again")


def test_run_status_wording() -> None:
    status = RunStatus()
    assert status.text() is None
    status.start("translate")
    assert status.text() == "running translate"
    status.update(
        RunStarted(
            run_id="r",
            chapter_path="c.json",
            chapter_id="c",
            task="translate",
            model="m",
            base_url="http://x",
            chunk_count=3,
            paragraph_count=1,
        )
    )
    status.update(
        ChunkStarted(
            run_id="r",
            chunk=2,
            paragraph_ids=("a",),
            first_paragraph_id="a",
            last_paragraph_id="a",
            chunk_count=3,
            part="2.1",
        )
    )
    status.update(ModelRequest(run_id="r", chunk=2, turn=2, message_count=3, tool_names=()))
    status.update(BatchCommitted(run_id="r", chunk=2, file="c.json", paragraph_ids=("a",)))
    assert status.text() == "running translate · chunk 2.1/3 · turn 2 · 1/1 paragraph"
    status.cancelling = True
    assert status.text() == "translate: cancelling…"
    status.update(RunFinished(run_id="r", status="cancelled", summary=RunSummary()))
    assert status.text() == "last run: cancelled"


async def test_the_demo_model_on_a_real_chapter_is_never_silent(review_path: Path, workspace_dir: Path) -> None:
    app = make_app(review_path, watch=False)  # no configuration: the offline demo model
    messages = Messages()
    async with app.run_test(size=(120, 40), message_hook=messages) as pilot:
        screen = chapter_screen(app)
        assert "DEMO MODEL: writes placeholder text" in screen_text(app)
        await pilot.press("t")
        await wait_for(pilot, lambda: any("offline demo" in n for n in messages.notifications()), what="the warning")
        await wait_for(pilot, lambda: not screen.run_in_progress, what="the run")
    sample = make_app(workspace_dir / "rashomon.json", watch=False)  # the bundled sample: the demo's own chapter
    async with sample.run_test(size=(120, 40)):
        assert "DEMO MODEL" not in screen_text(sample)


@pytest.mark.slow
async def test_idle_chapter_views_are_kept_up_to_a_limit(workspace_dir: Path) -> None:
    from tests.tui.conftest import sample_bytes
    from tui.app import KEPT_CHAPTER_VIEWS

    for i in range(KEPT_CHAPTER_VIEWS + 2):
        (workspace_dir / f"c{i}.json").write_bytes(sample_bytes().replace(b'"rashomon"', f'"c{i}"'.encode(), 1))
    app = make_app(workspace_dir, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        ws = app.workspace
        assert ws is not None
        for i in range(KEPT_CHAPTER_VIEWS + 2):
            session = ws.session(workspace_dir / f"c{i}.json")
            session.load()
            app.open_chapter(session)
            await pilot.pause()
            app.show_chapter_list()
            await pilot.pause()
        kept = list(app._chapter_views)
        assert len(kept) == KEPT_CHAPTER_VIEWS + 1  # the idle ones within the limit, plus the newest
        assert "chapter:" + str((workspace_dir / "c0.json").resolve()) not in kept  # the oldest was let go
        app.open_chapter(ws.session(workspace_dir / f"c{KEPT_CHAPTER_VIEWS + 1}.json"))
        await pilot.pause()
        assert app.screen is app._chapter_views[kept[-1]]  # the same view again, not a new one


def test_the_status_line_shows_tokens_cache_share_and_cost_as_they_come() -> None:
    status = RunStatus()
    status.start("translate")
    status.update(
        RunStarted(
            run_id="r",
            chapter_path="c.json",
            chapter_id="c",
            task="translate",
            model="m",
            base_url="http://x",
            chunk_count=1,
            paragraph_count=2,
            prices={"input": 2.5, "cached_input": 1.25, "output": 10.0, "currency": "USD"},
        )
    )
    assert status.text() == "running translate · 0/2 paragraphs"  # nothing spent yet: nothing said
    for prompt, completion, cached in ((800_000, 120_000, 0), (950_000, 3_000, 760_000)):
        status.update(
            ModelResponse(
                run_id="r",
                chunk=1,
                turn=1,
                content="",
                reasoning="",
                tool_calls=(),
                finish_reason="tool_calls",
                latency_ms=1.0,
                usage={
                    "prompt_tokens": prompt,
                    "completion_tokens": completion,
                    "total_tokens": prompt + completion,
                    "cached_tokens": cached,
                },
            )
        )
    assert status.text() == "running translate · 0/2 paragraphs · 1.87M tok · 43% cached · $4.66"
    status.update(RunFinished(run_id="r", status="complete", summary=RunSummary()))
    assert status.text() == "last run: complete · 1.87M tok · 43% cached · $4.66"
    status.start("polish")  # a new run starts from nothing
    status.update(
        RunStarted(
            run_id="s",
            chapter_path="c.json",
            chapter_id="c",
            task="polish",
            model="demo",
            base_url="demo://offline",
            chunk_count=1,
            paragraph_count=1,
        )
    )
    status.update(
        ModelResponse(
            run_id="s",
            chunk=1,
            turn=1,
            content="",
            reasoning="",
            tool_calls=(),
            finish_reason="stop",
            latency_ms=1.0,
            usage={"prompt_tokens": 900, "completion_tokens": 100, "total_tokens": 1000},
        )
    )
    assert status.text() == "running polish · 0/1 paragraph · 1.0k tok"  # no prices, no cache report: tokens only


async def test_with_no_model_named_the_run_keys_refuse_and_write_nothing(
    small_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from engine.config import load_config, resolve_model
    from store.workspace import Workspace
    from tui.app import ProofdeskApp
    from tui.session import WorkspaceSession

    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    before = small_path.read_bytes()
    config = load_config()
    ws = WorkspaceSession(Workspace.for_chapter(small_path), config, resolve_model(config))  # `proofdesk PATH`
    session = ws.session(small_path)
    session.load()
    messages = Messages()
    app = ProofdeskApp(ws, chapter=session, watch=False)
    async with app.run_test(size=SIZE, message_hook=messages) as pilot:
        screen = chapter_screen(app)
        await pilot.press("t")
        await wait_for(pilot, lambda: bool(messages.notifications()), what="the refusal")
        assert "No model is configured" in messages.notifications()[-1]
        assert not screen.run_in_progress
    assert small_path.read_bytes() == before
