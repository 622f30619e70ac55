"""What an imported unit does to its paragraph (design sections 16 and 18), without files."""

from __future__ import annotations

from store.formats.import_apply import Skipped, apply_units
from store.formats.units import ImportUnit
from store.model import Chapter
from tests.store.formats.exchange_chapters import states_chapter


def apply(chapter: Chapter, *units: ImportUnit, suggest: bool = False):  # type: ignore[no-untyped-def]
    return apply_units(chapter, units, suggest=suggest, reason="imported from x.xlf")


def unit(pid: str, source: str, target: str | None, done: bool = False) -> ImportUnit:
    return ImportUnit(pid, source, target, done)


def test_an_equal_target_changes_nothing_and_gives_the_chapter_itself() -> None:
    chapter = states_chapter()
    outcome = apply(chapter, unit("a0000002", "二つ目。", "Second."), unit("a0000001", "一つ目。", None))
    assert outcome.chapter is chapter and outcome.counts == {"unchanged": 2} and outcome.skipped == []


def test_a_different_target_is_a_selected_import_version() -> None:
    outcome = apply(states_chapter(), unit("a0000002", "二つ目。", "The second."))
    para = outcome.chapter.paragraph("a0000002")
    assert para.selected_text == "The second." and para.selected.origin == "import" and para.selected.status is None
    assert len(para.translations) == 2 and not para.reviewed and outcome.counts == {"selected": 1}


def test_a_protected_paragraph_gets_a_suggestion() -> None:
    outcome = apply(
        states_chapter(),
        unit("a0000004", "四つ目。", "The fourth.", done=True),  # reviewed
        unit("a0000005", "五つ目。", "Fifth, changed."),  # a manual selection
    )
    for pid, kept in (("a0000004", "Fourth."), ("a0000005", "Fifth, by hand.")):
        para = outcome.chapter.paragraph(pid)
        assert para.selected_text == kept
        (suggestion,) = para.pending
        assert suggestion.origin == "import" and suggestion.reason == "imported from x.xlf"
        assert suggestion.based_on == para.selected_translation_id
    assert outcome.chapter.paragraph("a0000004").reviewed
    assert outcome.counts == {"suggested": 2}


def test_suggest_makes_every_different_target_a_suggestion() -> None:
    outcome = apply(states_chapter(), unit("a0000002", "二つ目。", "The second.", done=True), suggest=True)
    para = outcome.chapter.paragraph("a0000002")
    assert para.selected_text == "Second." and [v.text for v in para.pending] == ["The second."]
    assert not para.reviewed  # the mark is for a target that is selected


def test_a_target_equal_to_a_pending_suggestion_adds_nothing() -> None:
    chapter = states_chapter()
    assert apply(chapter, unit("a0000006", "六つ目。", "The sixth.")).chapter is chapter


def test_a_done_mark_sets_reviewed_and_a_weaker_one_never_clears_it() -> None:
    chapter = states_chapter()
    marked = apply(chapter, unit("a0000002", "二つ目。", "Second.", done=True))
    para = marked.chapter.paragraph("a0000002")
    assert para.reviewed and len(para.translations) == 1 and marked.counts == {"marked": 1}
    fresh = apply(chapter, unit("a0000002", "二つ目。", "New second.", done=True)).chapter.paragraph("a0000002")
    assert fresh.selected_text == "New second." and fresh.reviewed
    weaker = apply(chapter, unit("a0000004", "四つ目。", "Fourth.", done=False))
    assert weaker.chapter is chapter and weaker.chapter.paragraph("a0000004").reviewed


def test_unknown_ids_and_changed_sources_are_skipped_and_the_rest_applied() -> None:
    outcome = apply(
        states_chapter(),
        unit("nope", "x", "y"),
        unit("a0000001", "一つ目が変わった。", "First."),
        unit("a0000002", "二つ目。", "The second."),
    )
    assert outcome.skipped == [Skipped("nope", "unknown ID"), Skipped("a0000001", "source changed")]
    assert outcome.chapter.paragraph("a0000001").selected_text is None
    assert outcome.chapter.paragraph("a0000002").selected_text == "The second."
