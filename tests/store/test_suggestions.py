"""Protected paragraphs and suggestions in the store: a run never changes a person's text (merge, commit, file)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from store.commit import ChapterStore
from store.edits import EditError, accept, edit_and_accept, reject, select_version
from store.errors import ChapterLoadError
from store.loader import load_chapter
from store.merge import BatchItem, merge_batch
from store.model import SUGGESTION_KEYS, Chapter, Paragraph, append_version, prune_versions
from store.serialize import chapter_bytes


def para(pid: str, text: str, *versions: str, origin: str = "translation") -> Paragraph:
    p = Paragraph(id=pid, text=text)
    for v in versions:
        p, _ = append_version(p, v, origin=origin, model=None if origin == "manual" else "m0")  # type: ignore[arg-type]
    return p


def chapter(*paragraphs: Paragraph) -> Chapter:
    return Chapter(id="ch", source_language="ja", target_language="en", paragraphs=paragraphs)


BASE = chapter(
    para("a", "一", "one"),
    para("b", "二", "two").replace(reviewed=True),
    para("c", "三", "three", "my three", origin="manual"),
)


def test_protected_is_reviewed_or_a_manual_selection() -> None:
    assert [p.protected for p in BASE.paragraphs] == [False, True, True]
    assert not para("d", "四").protected  # nothing selected, not reviewed


def test_a_polish_leaves_a_reviewed_and_a_hand_written_paragraph_as_they_were_plus_a_suggestion_each() -> None:
    items = [
        BatchItem.based_on(p, p.selected_text + "!", reason="Emphasis.", category="style") for p in BASE.paragraphs
    ]
    out = merge_batch(BASE, items, origin="polish", model="m1")
    assert out.accepted == ("a", "b", "c")
    a, b, c = out.chapter.paragraphs
    assert a.selected_text == "one!" and not a.pending and a.selected is not None and a.selected.status is None
    assert a.selected.reason == "Emphasis." and a.selected.category == "style"  # an applied change keeps its reason
    for before, after in ((BASE.paragraphs[1], b), (BASE.paragraphs[2], c)):
        assert after.selected_translation_id == before.selected_translation_id
        assert after.reviewed == before.reviewed
        (s,) = after.pending
        assert (s.status, s.reason, s.category, s.based_on) == (
            "suggested",
            "Emphasis.",
            "style",
            before.selected_translation_id,
        )
    assert [(s.paragraph_id, s.why) for s in out.suggested] == [("b", "protected"), ("c", "protected")]


def test_apply_none_suggests_for_every_paragraph() -> None:
    items = [BatchItem.based_on(BASE.paragraphs[0], "One.")]
    out = merge_batch(BASE, items, origin="proofreading", model="m1", apply=False)
    a = out.chapter.paragraphs[0]
    assert a.selected_text == "one" and [v.text for v in a.pending] == ["One."]
    assert [(s.paragraph_id, s.why) for s in out.suggested] == [("a", "suggest_mode")]


def test_a_text_equal_to_a_pending_suggestion_is_unchanged() -> None:
    first = merge_batch(BASE, [BatchItem.based_on(BASE.paragraphs[1], "Two.")], origin="polish", model="m1")
    again = merge_batch(first.chapter, [BatchItem.based_on(BASE.paragraphs[1], "Two.")], origin="polish", model="m1")
    assert again.unchanged == ("b",) and again.accepted == () and again.chapter is first.chapter


def test_the_version_cap_never_prunes_a_pending_suggestion() -> None:
    p = BASE.paragraphs[1]
    p, s = append_version(
        p, "sug", origin="polish", model="m", select=False, notes={"status": "suggested", "based_on": None}
    )
    for n in range(5):
        p, _ = append_version(p, f"v{n}", origin="manual", model=None)
    pruned = prune_versions(p, 2)
    assert s.id in {v.id for v in pruned.translations} and pruned.selected_text == "v4"


def test_accept_selects_marks_reviewed_and_reject_changes_nothing_else() -> None:
    out = merge_batch(
        BASE, [BatchItem.based_on(BASE.paragraphs[0], "One.")], origin="proofreading", model="m", apply=False
    )
    a = out.chapter.paragraphs[0]
    (s,) = a.pending
    accepted = accept(a, s.id)
    assert accepted.selected_text == "One." and accepted.reviewed and accepted.translations[-1].status == "accepted"
    rejected = reject(a, s.id)
    assert rejected.selected_translation_id == a.selected_translation_id and rejected.reviewed == a.reviewed
    assert rejected.translations[-1].status == "rejected" and not rejected.pending
    with pytest.raises(EditError, match="not a pending suggestion"):
        accept(rejected, s.id)
    edited = edit_and_accept(a, s.id, "One, edited.")
    assert edited.selected is not None and edited.selected.origin == "manual" and edited.reviewed
    assert [v.status for v in edited.translations] == [None, "accepted", None]


def test_selecting_a_suggestion_by_hand_accepts_it() -> None:
    out = merge_batch(BASE, [BatchItem.based_on(BASE.paragraphs[0], "One.")], origin="polish", model="m", apply=False)
    a = out.chapter.paragraphs[0]
    chosen = select_version(a, a.pending[0].id)
    assert chosen.selected_text == "One." and chosen.translations[-1].status == "accepted"


def test_an_old_chapter_file_loads_and_round_trips_byte_identical(tmp_path: Path) -> None:
    path = tmp_path / "old.json"
    data = chapter_bytes(BASE)
    path.write_bytes(data)
    loaded = load_chapter(path)
    assert chapter_bytes(loaded) == data
    assert all(v.status is None for p in loaded.paragraphs for v in p.translations)


def test_a_suggestion_round_trips_with_its_keys_after_the_usual_ones(tmp_path: Path) -> None:
    out = merge_batch(
        BASE, [BatchItem.based_on(BASE.paragraphs[1], "Two.", reason="r", category="style")], origin="polish", model="m"
    )
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(out.chapter))
    loaded = load_chapter(path)
    assert chapter_bytes(loaded) == path.read_bytes()
    version = orjson.loads(path.read_bytes())["paragraphs"][1]["translations"][-1]
    assert list(version) == ["id", "text", "origin", "model", "created_at", "source_hash", *SUGGESTION_KEYS]
    assert loaded.paragraphs[1].pending[0].reason == "r"


def test_a_bad_status_is_a_load_error_naming_the_version(tmp_path: Path) -> None:
    doc = orjson.loads(chapter_bytes(BASE))
    doc["paragraphs"][0]["translations"][0]["status"] = "maybe"
    path = tmp_path / "bad.json"
    path.write_bytes(orjson.dumps(doc))
    with pytest.raises(ChapterLoadError, match="status must be one of suggested, accepted, rejected"):
        load_chapter(path)


def test_commit_batch_stores_suggestions_durably(tmp_path: Path) -> None:
    path = tmp_path / "ch.json"
    path.write_bytes(chapter_bytes(BASE))
    store = ChapterStore(path)
    seen = store.load()
    result = store.commit_batch(
        [BatchItem.based_on(p, p.selected_text + "?") for p in seen.paragraphs], origin="polish", model="m"
    )
    assert result.accepted == ("a", "b", "c")
    assert [(s.paragraph_id, s.why) for s in result.suggested] == [("b", "protected"), ("c", "protected")]
    on_disk = load_chapter(path)
    assert [p.selected_text for p in on_disk.paragraphs] == ["one?", "two", "my three"]
    assert [p.reviewed for p in on_disk.paragraphs] == [False, True, False]
    result = store.commit_batch(
        [BatchItem.based_on(on_disk.paragraphs[0], "One!")], origin="proofreading", model="m", apply=False
    )
    assert load_chapter(path).paragraphs[0].selected_text == "one?"
