"""Stale translations (design section 17): a changed source shows, and ``run --stale`` takes exactly those."""

from __future__ import annotations

from pathlib import Path

from engine.chunks import build_chunks, work_set
from engine.config import RunDefaults
from engine.run_request import RunRequest
from store.loader import load_chapter
from store.model import Chapter, Paragraph, append_version
from store.serialize import chapter_bytes
from tests.engine.loop_support import collect, settings_for
from tests.support.model_server import ModelServer, Reviser
from tui.cli import main


def chapter_with_changed_sources(folder: Path) -> Path:
    """Four translated paragraphs: [2] and [4] had their source edited since; [4] is reviewed."""
    paragraphs = []
    for n, text in enumerate(["一。", "二。", "三。", "四。"], start=1):
        para, _ = append_version(Paragraph(id=f"s{n}", text=text), f"T{n}.", origin="translation", model="m")
        paragraphs.append(para)
    paragraphs[1] = paragraphs[1].replace(text="二つ。")
    paragraphs[3] = paragraphs[3].replace(text="四つ。", reviewed=True)
    path = folder / "ch.json"
    path.write_bytes(
        chapter_bytes(Chapter(id="c", source_language="ja", target_language="en", paragraphs=tuple(paragraphs)))
    )
    return path


def test_the_stale_work_set_is_exactly_the_changed_paragraphs(tmp_path: Path) -> None:
    chapter = load_chapter(chapter_with_changed_sources(tmp_path))
    assert [p.stale for p in chapter.paragraphs] == [False, True, False, True]
    for task in ("translate", "polish", "proofread"):
        assert work_set(chapter, task, stale=True) == [1, 3]  # type: ignore[arg-type]
    (chunk,) = build_chunks(chapter, "translate", stale=True)
    assert chunk.paragraph_ids == ("s2", "s4")


async def test_run_stale_retranslates_them_and_a_protected_one_gets_a_suggestion(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = chapter_with_changed_sources(tmp_path)
    model_server.responder = Reviser(prefix="new", reason=None, category=None)
    request = RunRequest.configured(path, "translate", settings_for(model_server.base_url), RunDefaults(), stale=True)
    await collect(request)
    after = load_chapter(path)
    assert [p.selected_text for p in after.paragraphs] == ["T1.", "new s2", "T3.", "T4."]
    assert [v.text for v in after.paragraphs[3].pending] == ["new s4"]  # reviewed: stays, gets a suggestion
    assert not after.paragraphs[1].stale  # translated for the new source


def test_stale_with_all_is_refused(tmp_path: Path) -> None:
    path = chapter_with_changed_sources(tmp_path)
    assert main(["run", str(path), "--task", "translate", "--model", "demo", "--stale", "--all"]) == 2


def test_source_changed_is_a_warning_in_check_and_in_the_incremental_checks(tmp_path: Path) -> None:
    from engine.checks import check_chapter
    from engine.checks.incremental import ChapterChecks

    path = chapter_with_changed_sources(tmp_path)
    chapter = load_chapter(path)
    found = [(w.paragraph_id, w.code, w.severity) for w in check_chapter(chapter) if w.code == "SOURCE_CHANGED"]
    assert found == [("s2", "SOURCE_CHANGED", "warning"), ("s4", "SOURCE_CHANGED", "warning")]
    # An editor edits [1]'s source: the next state's warnings say so at once, as a check from scratch does.
    checks = ChapterChecks.of(chapter)
    edited = chapter.with_paragraphs({0: chapter.paragraphs[0].replace(text="一つ目。")})
    updated = checks.update(edited)
    assert updated is not None
    stale_ids = {w.paragraph_id for w in updated.listed() if w.code == "SOURCE_CHANGED"}
    assert stale_ids == {"s1", "s2", "s4"}
    assert main(["check", str(path), "--codes", "SOURCE_CHANGED"]) == 1
