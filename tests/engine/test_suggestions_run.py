"""A run never changes a person's text: protected paragraphs get suggestions, a proofread suggests by default, and a
batch item's reason and category are stored and read leniently (design section 16), against the scripted server."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.chunks import PROTECTED_MARK, build_chunks
from engine.config import RunDefaults
from engine.events import BatchCommitted, RunStarted
from engine.run_request import RunRequest
from engine.scope import ChunkScope
from engine.tools import default_registry
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import Chapter, append_version
from store.serialize import chapter_bytes
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, Reviser
from tui.event_text import describer

A1, _, A3, A4, _, A6, A7, A8 = IDS


def translated(folder: Path) -> Path:
    """The test chapter with every non-empty paragraph translated; [3] reviewed, [4] written by hand."""
    path = write_chapter(folder)
    chapter = load_chapter(path)
    paragraphs = list(chapter.paragraphs)
    for i, para in enumerate(paragraphs):
        if not para.is_empty:
            paragraphs[i] = append_version(para, f"ai {para.id}", origin="translation", model="m0")[0]
    paragraphs[2] = paragraphs[2].replace(reviewed=True)
    paragraphs[3] = append_version(paragraphs[3], "my own words", origin="manual", model=None)[0]
    path.write_bytes(chapter_bytes(chapter.replace(paragraphs=tuple(paragraphs))))
    return path


def request(path: Path, server: ModelServer, task: str, **options: object) -> RunRequest:
    return RunRequest.configured(path, task, settings_for(server.base_url), RunDefaults(), **options)  # type: ignore[arg-type]


async def test_a_polish_leaves_a_reviewed_and_a_hand_written_paragraph_as_they_were_plus_a_suggestion_each(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    before = load_chapter(path)
    model_server.responder = Reviser()
    events = await collect(request(path, model_server, "polish"))
    after = load_chapter(path)
    for pid in (A3, A4):  # the person's paragraphs: selection and reviewed exactly as they were
        old, new = before.paragraph(pid), after.paragraph(pid)
        assert old is not None and new is not None
        assert (new.selected_translation_id, new.reviewed) == (old.selected_translation_id, old.reviewed)
        (suggestion,) = new.pending
        assert suggestion.text == f"revised {pid}" and suggestion.reason == "Smoother."
        assert suggestion.category == "fluency" and suggestion.based_on == old.selected_translation_id
        assert suggestion.origin == "polish" and suggestion.model == "test-model"
    for pid in (A1, A6, A7, A8):  # nobody's: the polish is selected, with its reason
        para = after.paragraph(pid)
        assert para is not None and para.selected_text == f"revised {pid}" and not para.pending
        assert para.selected is not None and para.selected.reason == "Smoother."
    (committed,) = kinds(events, "batch_committed")
    assert set(committed.suggested) == set(committed.protected) == {A3, A4}
    assert kinds(events, "run_finished")[0].status == "complete"  # suggestions count as submitted
    words = describer(committed).log(committed)
    assert "2 as suggestions (2 the editor's text)" in words.line
    assert f"suggestions, as the paragraph is reviewed or written by hand: {A3}, {A4}" in words.detail


async def test_a_proofread_changes_no_selection_by_default(tmp_path: Path, model_server: ModelServer) -> None:
    path = translated(tmp_path)
    before = load_chapter(path)
    model_server.responder = Reviser(category="grammar")
    events = await collect(request(path, model_server, "proofread"))
    after = load_chapter(path)
    assert [p.selected_translation_id for p in after.paragraphs] == [
        p.selected_translation_id for p in before.paragraphs
    ]
    assert [p.reviewed for p in after.paragraphs] == [p.reviewed for p in before.paragraphs]
    assert {p.id for p in after.paragraphs if p.pending} == {A1, A3, A4, A6, A7, A8}
    (started,) = kinds(events, "run_started")
    assert isinstance(started, RunStarted) and started.apply is False
    assert "suggestions only" in describer(started).log(started).line
    (committed,) = kinds(events, "batch_committed")
    assert isinstance(committed, BatchCommitted) and set(committed.protected) == {A3, A4}
    assert "suggestions, as the run applies nothing" in describer(committed).log(committed).detail


@pytest.mark.parametrize("how", ["flag", "config"])
async def test_a_proofread_applies_when_asked_but_never_to_a_persons_paragraph(
    tmp_path: Path, model_server: ModelServer, how: str
) -> None:
    path = translated(tmp_path)
    model_server.responder = Reviser(category="grammar")
    if how == "flag":
        req = request(path, model_server, "proofread", apply=True)
    else:
        req = RunRequest.configured(
            path, "proofread", settings_for(model_server.base_url), RunDefaults(proofread_apply=True)
        )
    await collect(req)
    after = load_chapter(path)
    assert {p.id for p in after.paragraphs if p.pending} == {A3, A4}
    assert after.paragraph(A1).selected_text == f"revised {A1}"  # type: ignore[union-attr]


async def test_suggest_makes_a_polish_store_every_change_as_a_suggestion(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    before = load_chapter(path)
    model_server.responder = Reviser()
    await collect(request(path, model_server, "polish", apply=False))
    after = load_chapter(path)
    assert [p.selected_text for p in after.paragraphs] == [p.selected_text for p in before.paragraphs]
    assert {p.id for p in after.paragraphs if p.pending} == {A1, A3, A4, A6, A7, A8}


async def test_a_translate_all_over_a_reviewed_paragraph_suggests(tmp_path: Path, model_server: ModelServer) -> None:
    path = translated(tmp_path)
    model_server.responder = Reviser(prefix="again", reason=None, category=None)
    await collect(request(path, model_server, "translate", include_all=True))
    after = load_chapter(path)
    assert after.paragraph(A3).selected_text == f"ai {A3}" and after.paragraph(A3).pending[0].reason is None  # type: ignore[union-attr]
    assert after.paragraph(A1).selected_text == f"again {A1}"  # type: ignore[union-attr]


async def test_a_one_paragraph_run_on_a_reviewed_paragraph_suggests(tmp_path: Path, model_server: ModelServer) -> None:
    path = translated(tmp_path)
    model_server.responder = Reviser()
    await collect(request(path, model_server, "polish", only_paragraph=A3, instruction="more formal"))
    para = load_chapter(path).paragraph(A3)
    assert para is not None and para.reviewed and para.selected_text == f"ai {A3}"
    assert [v.text for v in para.pending] == [f"revised {A3}"]


def test_the_chunk_message_marks_a_protected_paragraph_after_its_translation_line(tmp_path: Path) -> None:
    chapter = load_chapter(translated(tmp_path))
    (chunk,) = build_chunks(chapter, "polish")
    entries = dict(zip(chunk.paragraph_ids, chunk.entries, strict=True))
    assert entries[A3].endswith(f"\nTranslation: ai {A3}\n{PROTECTED_MARK}")
    assert entries[A4].endswith(f"\nTranslation: my own words\n{PROTECTED_MARK}")
    assert PROTECTED_MARK not in entries[A1]
    assert PROTECTED_MARK == "(reviewed by the editor: suggest only a real error)"


async def batch_result(path: Path, items: list[dict[str, object]]) -> dict[str, object]:
    chapter = load_chapter(path)
    scope = ChunkScope.standalone(
        ChapterStore(path), task="polish", paragraph_ids=[p.id for p in chunk_paragraphs(chapter)]
    )
    reply = await default_registry().call("add_translation_batch", {"paragraphs": items}, scope)
    return reply.result


def chunk_paragraphs(chapter: Chapter) -> list:
    return [p for p in chapter.paragraphs if not p.is_empty]


async def test_an_unknown_category_is_kept_as_other_with_a_warning_never_a_refusal(tmp_path: Path) -> None:
    path = translated(tmp_path)
    result = await batch_result(
        path, [{"paragraph_id": A1, "translated_text": "new", "reason": "Typo.", "category": "Typos"}]
    )
    assert result["success"] is True and result["accepted"] == [A1]
    assert {"paragraph_id": A1, "code": "UNKNOWN_CATEGORY"}.items() <= result["warnings"][0].items()  # type: ignore[index]
    version = load_chapter(path).paragraph(A1).selected  # type: ignore[union-attr]
    assert version is not None and (version.reason, version.category) == ("Typo.", "other")


async def test_a_reason_over_500_characters_is_cut_with_a_warning(tmp_path: Path) -> None:
    path = translated(tmp_path)
    result = await batch_result(path, [{"paragraph_id": A3, "translated_text": "new", "reason": "x" * 600}])
    assert result["success"] is True and result["suggested"] == [A3] and result["remaining"] == [A1, A4, A6, A7, A8]
    warnings = result["warnings"]  # the reason's warning first, then the QA checks on the text
    assert isinstance(warnings, list) and warnings[0]["code"] == "REASON_TOO_LONG" and warnings[0]["paragraph_id"] == A3
    (suggestion,) = load_chapter(path).paragraph(A3).pending  # type: ignore[union-attr]
    assert suggestion.reason == "x" * 500 and suggestion.category is None


async def test_a_text_equal_to_a_pending_suggestion_is_unchanged(tmp_path: Path) -> None:
    path = translated(tmp_path)
    await batch_result(path, [{"paragraph_id": A3, "translated_text": "new"}])
    again = await batch_result(path, [{"paragraph_id": A3, "translated_text": "new"}])
    assert again["accepted"] == [] and again["unchanged"] == [A3]
