"""The review queue as pure logic: pending suggestions in chapter order, IDs and filters, decisions, model stats."""

from __future__ import annotations

from typing import Any

import pytest

from store.model import Chapter, Paragraph, TranslationVersion
from store.model_stats import ModelStats, model_stats
from store.review_decisions import (
    ReviewRequest,
    Target,
    Unresolved,
    apply_decisions,
    plan_review,
    resolve_ids,
)
from store.suggestions import newest_pending, pending_suggestions, task_of

T0 = "2026-01-01T10:00:00Z"


def v(
    vid: str, text: str, origin: str = "translation", model: str | None = "m1", at: str = T0, **notes: Any
) -> TranslationVersion:
    """A version; ``notes`` are its optional keys (status, reason, category, based_on), in that order."""
    return TranslationVersion(id=vid, text=text, origin=origin, model=model, created_at=at, extra=notes)


def sug(vid: str, text: str, based_on: str | None, **kw: Any) -> TranslationVersion:
    """A pending suggestion of a proofread by m1 unless said otherwise."""
    origin = kw.pop("origin", "proofreading")
    model = kw.pop("model", "m1")
    at = kw.pop("at", T0)
    return v(vid, text, origin, model, at, status=kw.pop("status", "suggested"), **kw, based_on=based_on)


def p(pid: str, *versions: TranslationVersion, selected: str | None = None, reviewed: bool = False) -> Paragraph:
    return Paragraph(
        id=pid, text=f"source {pid}", translations=versions, selected_translation_id=selected, reviewed=reviewed
    )


def chapter(*paragraphs: Paragraph, cid: str = "ch") -> Chapter:
    return Chapter(id=cid, source_language="ja", target_language="en", paragraphs=paragraphs)


QUEUE = chapter(
    Paragraph(id="e0", text=""),
    p(
        "p2",
        v("a1", "one"),
        sug("s1", "One.", "a1", reason="Capital.", category="style"),
        sug("s2", "One!", "a1", origin="polish", model="m2", category="grammar"),
        selected="a1",
    ),
    p("p3", sug("s3", "Three.", None, origin="translation")),
    p(
        "p4",
        v("a4", "four"),
        sug("s4", "Four.", "a4", status="accepted"),
        sug("s5", "FOUR", "a4", status="rejected"),
        v("m4", "Four, by hand.", "manual", None),
        sug("s6", "Four?", "a4", category="style"),
        selected="m4",
    ),
)


def test_pending_suggestions_come_in_chapter_order_with_every_field() -> None:
    listed = pending_suggestions(QUEUE)
    assert [(s.paragraph_index, s.paragraph_id, s.version_id) for s in listed] == [
        (2, "p2", "s1"),
        (2, "p2", "s2"),
        (3, "p3", "s3"),
        (4, "p4", "s6"),
    ]
    assert listed[0].to_json() == {
        "paragraph_index": 2,
        "paragraph_id": "p2",
        "version_id": "s1",
        "selected_text": "one",
        "text": "One.",
        "reason": "Capital.",
        "category": "style",
        "model": "m1",
        "task": "proofread",
        "created_at": T0,
        "based_on": "a1",
        "outdated": False,
    }
    assert [(s.task, s.model, s.reason, s.category) for s in listed[1:3]] == [
        ("polish", "m2", None, "grammar"),
        ("translate", "m1", None, None),
    ]
    assert listed[2].selected_text is None


def test_a_suggestion_is_outdated_once_the_selection_moved_from_its_base() -> None:
    assert [s.outdated for s in pending_suggestions(QUEUE)] == [False, False, False, True]
    translated = QUEUE.with_paragraphs({2: p("p3", v("t3", "three"), *QUEUE.paragraphs[2].translations, selected="t3")})
    assert pending_suggestions(translated)[2].outdated  # based on no translation; one is selected now


def test_task_of_every_origin() -> None:
    assert [task_of(o) for o in ("translation", "polish", "proofreading", "manual", "import")] == [
        "translate",
        "polish",
        "proofread",
        "manual",
        "import",
    ]


def test_newest_pending_is_the_latest_time_then_the_later_one() -> None:
    later_first = p("x", sug("b", "B", None, at="2026-01-02T00:00:00Z"), sug("a", "A", None, at="2026-01-01T00:00:00Z"))
    assert newest_pending(later_first).id == "b"  # type: ignore[union-attr]
    tie = p("x", sug("a", "A", None), sug("b", "B", None), sug("c", "C", None, status="rejected"))
    assert newest_pending(tie).id == "b"  # type: ignore[union-attr]
    # Compared as times: as strings "…00Z" would sort after "…00.500Z" and "+09:00" would be 9 hours late.
    times = p(
        "x",
        sug("frac", "F", None, at="2026-01-01T10:00:00.500Z"),
        sug("whole", "W", None, at="2026-01-01T10:00:00Z"),
        sug("tokyo", "T", None, at="2026-01-01T18:00:00+09:00"),
        sug("junk", "J", None, at="yesterday"),
    )
    assert newest_pending(times).id == "frac"  # type: ignore[union-attr]
    assert newest_pending(p("x", v("a", "A"), selected="a")) is None


def test_an_id_names_a_version_or_the_newest_suggestion_of_a_paragraph() -> None:
    found, unresolved = resolve_ids([QUEUE], ["s1", "p2", "p3", "s1"])
    assert found == [Target(0, 2, "p2", "s1"), Target(0, 2, "p2", "s2"), Target(0, 3, "p3", "s3")]
    assert unresolved == []


def test_an_id_that_names_nothing_pending_says_why() -> None:
    other = chapter(p("q1", sug("s1", "Again", None)), cid="other")
    _, unresolved = resolve_ids([QUEUE, other], ["s4", "s5", "a1", "e0", "nope", "s1"])
    assert unresolved == [
        Unresolved("s4", "already accepted", ((0, 4),)),
        Unresolved("s5", "already rejected", ((0, 4),)),
        Unresolved("a1", "an ordinary version, not a suggestion", ((0, 2),)),
        Unresolved("e0", "a paragraph without pending suggestions", ((0, 1),)),
        Unresolved("nope", "no suggestion or paragraph has this ID"),
        Unresolved("s1", "names 2 pending suggestions", ((0, 2), (1, 1))),
    ]


def test_accept_all_takes_the_filters_and_an_id_given_wins() -> None:
    style = plan_review([QUEUE], ReviewRequest(accept_all=True, category="style"))
    assert [(d.target.version_id, d.verdict) for d in style.decisions] == [("s1", "accepted"), ("s6", "accepted")]
    by_model = plan_review([QUEUE], ReviewRequest(reject_all=True, model="m2"))
    assert [(d.target.version_id, d.verdict) for d in by_model.decisions] == [("s2", "rejected")]
    mixed = plan_review([QUEUE], ReviewRequest(reject=("s1",), accept_all=True))
    assert [(d.target.version_id, d.verdict) for d in mixed.decisions] == [
        ("s1", "rejected"),
        ("s2", "accepted"),
        ("s3", "accepted"),
        ("s6", "accepted"),
    ]
    assert mixed.clear and mixed.of_chapter(0) == mixed.decisions and mixed.of_chapter(1) == ()


def test_a_plan_is_not_clear_with_an_unknown_id_or_a_contradiction() -> None:
    unknown = plan_review([QUEUE], ReviewRequest(accept=("s1", "s4")))
    assert not unknown.clear and [u.given for u in unknown.unresolved] == ["s4"]
    both = plan_review([QUEUE], ReviewRequest(accept=("p2",), reject=("s2",)))  # p2 stands for s2
    assert not both.clear and both.contradicted == (Target(0, 2, "p2", "s2"),)


def decide(chapter_: Chapter, *pairs: tuple[str, str]) -> Chapter:
    plan = plan_review([chapter_], ReviewRequest(accept=tuple(i for i, d in pairs if d == "a")))
    rejects = plan_review([chapter_], ReviewRequest(reject=tuple(i for i, d in pairs if d == "r")))
    return apply_decisions(chapter_, (*plan.decisions, *rejects.decisions))


def test_accept_selects_the_suggestion_and_marks_the_paragraph_reviewed() -> None:
    after = decide(QUEUE, ("s1", "a")).paragraphs[1]
    assert after.selected_translation_id == "s1" and after.reviewed
    assert [x.status for x in after.translations] == [None, "accepted", "suggested"]


def test_reject_changes_only_the_status() -> None:
    before = QUEUE.paragraphs[1]
    after = decide(QUEUE, ("s2", "r")).paragraphs[1]
    assert after.translations[2].status == "rejected"
    assert after.translations[2].replace(extra={}) == before.translations[2].replace(extra={})
    assert after.replace(translations=before.translations) == before


def test_accepting_several_of_one_paragraph_leaves_the_newest_selected() -> None:
    para = p("x", v("a", "A"), sug("late", "L", "a", at="2026-01-03T00:00:00Z"), sug("early", "E", "a"), selected="a")
    after = decide(chapter(para), ("late", "a"), ("early", "a")).paragraphs[0]
    assert after.selected_translation_id == "late" and [x.status for x in after.translations[1:]] == ["accepted"] * 2


def test_a_decision_made_meanwhile_stays_and_nothing_left_writes_nothing() -> None:
    plan = plan_review([QUEUE], ReviewRequest(reject=("s1",)))
    meanwhile = decide(QUEUE, ("s1", "a"))
    assert apply_decisions(meanwhile, plan.decisions) is meanwhile  # the acceptance on disk stays
    gone = QUEUE.replace(paragraphs=QUEUE.paragraphs[:1])
    assert apply_decisions(gone, plan.decisions) is gone


def test_model_stats_count_every_column() -> None:
    book = chapter(
        p("a", v("t1", "kept"), selected="t1"),
        p("b", v("t2", "old"), v("p3", "polished", "polish", "m2"), selected="p3"),
        p("c", v("t4", "rewritten"), v("m5", "by hand", "manual", None), selected="m5"),
        # An earlier hand-written version chosen again: t7 is replaced, not edited.
        p("d", v("m6", "mine", "manual", None), v("t7", "theirs"), selected="m6"),
        p("e", v("t8", "x"), v("t9", "y"), v("m10", "z", "manual", None), selected="m10"),
        p(
            "f",
            v("t11", "base"),
            sug("s12", "wait", "t11", model="m2"),
            sug("s13", "yes", "t11", model="m2", status="accepted"),
            sug("s14", "no", "t11", model="m2", status="rejected"),
            selected="s13",
        ),
        p("g", v("i15", "imported", "import", None), sug("s16", "nameless", "i15", model=None), selected="i15"),
    )
    rows = model_stats([book])
    assert rows == [
        ModelStats(None, "proofread", suggested=1, pending=1),
        ModelStats("m1", "translate", applied=7, kept=1, replaced=6, edited=3),
        ModelStats("m2", "polish", applied=1, kept=1),
        ModelStats("m2", "proofread", suggested=3, accepted=1, rejected=1, pending=1),
    ]
    assert rows[1].to_json() == {
        "model": "m1",
        "task": "translate",
        "suggested": 0,
        "accepted": 0,
        "rejected": 0,
        "pending": 0,
        "applied": 7,
        "kept": 1,
        "edited": 3,
        "replaced": 6,
    }
    assert model_stats([book, book])[0] == ModelStats(None, "proofread", suggested=2, pending=2)


@pytest.mark.parametrize("chapters", [[], [chapter(Paragraph(id="e", text=""))]])
def test_model_stats_of_nothing_is_no_row(chapters: list[Chapter]) -> None:
    assert model_stats(chapters) == []
