"""The merge rules of design section 7, on chapters in memory (no I/O)."""

from __future__ import annotations

import pytest

from store.merge import BatchItem, merge_batch
from store.model import Chapter, Paragraph, append_version


def chapter(*paragraphs: Paragraph) -> Chapter:
    return Chapter(id="ch", paragraphs=paragraphs)


def para(pid: str, text: str, *versions: str) -> Paragraph:
    p = Paragraph(id=pid, text=text)
    for v in versions:
        p, _ = append_version(p, v, origin="translation", model="m0")
    return p


BASE = chapter(para("a", "一", "one"), para("b", "二"), para("c", "三", "three", "Three"))


def test_append_and_select() -> None:
    items = [BatchItem.based_on(BASE.paragraphs[0], "One."), BatchItem.based_on(BASE.paragraphs[1], "Two.")]
    out = merge_batch(BASE, items, origin="polish", model="m1", created_at="2026-01-01T00:00:00Z")
    assert out.accepted == ("a", "b") and out.unchanged == () and out.kept_selection == () and out.stale == ()
    a, b = out.chapter.paragraphs[0], out.chapter.paragraphs[1]
    assert [t.text for t in a.translations] == ["one", "One."]
    assert a.selected_text == "One." and b.selected_text == "Two."
    new = a.translations[-1]
    assert (new.origin, new.model, new.created_at) == ("polish", "m1", "2026-01-01T00:00:00Z")
    assert out.chapter.paragraphs[2] is BASE.paragraphs[2]  # untouched paragraphs are the same objects


def test_text_equal_to_the_selected_version_is_unchanged() -> None:
    items = [BatchItem.based_on(BASE.paragraphs[0], "one"), BatchItem.based_on(BASE.paragraphs[1], "Two.")]
    out = merge_batch(BASE, items, origin="polish", model="m1")
    assert out.unchanged == ("a",) and out.accepted == ("b",)
    assert out.chapter.paragraphs[0] is BASE.paragraphs[0]


def test_text_equal_to_an_unselected_version_is_appended() -> None:
    c = BASE.paragraphs[2]  # versions "three", "Three"; "Three" selected
    out = merge_batch(BASE, [BatchItem.based_on(c, "three")], origin="polish", model="m1")
    assert out.accepted == ("c",)
    assert [t.text for t in out.chapter.paragraphs[2].translations] == ["three", "Three", "three"]


def test_nothing_to_write_when_every_item_is_unchanged() -> None:
    out = merge_batch(BASE, [BatchItem.based_on(BASE.paragraphs[0], "one")], origin="polish", model="m")
    assert not out.changed and out.chapter is BASE


@pytest.mark.parametrize("change", ["source", "gone"])
def test_stale_source_rejects_the_whole_batch(change: str) -> None:
    items = [BatchItem.based_on(BASE.paragraphs[0], "One."), BatchItem.based_on(BASE.paragraphs[1], "Two.")]
    if change == "source":
        now = BASE.with_paragraphs({1: BASE.paragraphs[1].replace(text="二（改）")})
    else:
        now = BASE.replace(paragraphs=(BASE.paragraphs[0], BASE.paragraphs[2]))
    out = merge_batch(now, items, origin="translation", model="m")
    assert out.chapter is now and out.accepted == () and out.unchanged == ()
    assert [s.paragraph_id for s in out.stale] == ["b"]
    assert out.stale[0].base_source == "二"
    assert out.stale[0].current_source == ("二（改）" if change == "source" else None)


def test_a_persons_new_selection_is_kept() -> None:
    seen = BASE.paragraphs[0]
    item = BatchItem.based_on(seen, "AI text")
    person, manual = append_version(seen, "my own text", origin="manual", model=None)
    now = BASE.with_paragraphs({0: person})
    out = merge_batch(now, [item], origin="polish", model="m1")
    a = out.chapter.paragraphs[0]
    assert out.accepted == ("a",)
    assert [k.paragraph_id for k in out.kept_selection] == ["a"]
    kept = out.kept_selection[0]
    assert a.selected_translation_id == manual.id and a.selected_text == "my own text"
    assert a.translations[-1].text == "AI text" and kept.version_id == a.translations[-1].id
    assert (kept.base_selected_id, kept.current_selected_id) == (seen.selected_translation_id, manual.id)
    assert kept.current_selected_text == "my own text"


def test_a_person_selecting_an_older_version_is_kept() -> None:
    c = BASE.paragraphs[2]
    item = BatchItem.based_on(c, "AI")
    now = BASE.with_paragraphs({2: c.replace(selected_translation_id=c.translations[0].id)})
    out = merge_batch(now, [item], origin="polish", model="m")
    assert out.chapter.paragraphs[2].selected_text == "three"
    assert [k.paragraph_id for k in out.kept_selection] == ["c"]


def test_person_wrote_the_same_text_counts_as_unchanged() -> None:
    seen = BASE.paragraphs[0]
    person, _ = append_version(seen, "AI text", origin="manual", model=None)
    now = BASE.with_paragraphs({0: person})
    out = merge_batch(now, [BatchItem.based_on(seen, "AI text")], origin="polish", model="m")
    assert out.unchanged == ("a",) and out.kept_selection == ()


def test_version_cap_prunes_oldest_unselected_only() -> None:
    p = para("a", "一", *[f"v{i}" for i in range(5)])
    p = p.replace(selected_translation_id=p.translations[0].id)  # the oldest is selected: never pruned
    ch = chapter(p)
    out = merge_batch(ch, [BatchItem.based_on(p, "v5")], origin="polish", model="m", keep_versions=3)
    assert [t.text for t in out.chapter.paragraphs[0].translations] == ["v3", "v4", "v5"]
    assert out.chapter.paragraphs[0].selected_text == "v5"


def test_kept_selection_survives_the_cap() -> None:
    p = para("a", "一", "v0", "v1", "v2")
    item = BatchItem.based_on(p, "AI")
    p = p.replace(selected_translation_id=p.translations[0].id)
    out = merge_batch(chapter(p), [item], origin="polish", model="m", keep_versions=2)
    texts = [t.text for t in out.chapter.paragraphs[0].translations]
    assert texts == ["v0", "AI"] and out.chapter.paragraphs[0].selected_text == "v0"


def test_cap_of_one_is_refused() -> None:
    with pytest.raises(ValueError, match="keep_versions"):
        merge_batch(BASE, [], origin="polish", model="m", keep_versions=1)


def test_duplicate_ids_in_a_batch_are_a_programming_error() -> None:
    item = BatchItem.based_on(BASE.paragraphs[0], "x")
    with pytest.raises(ValueError, match="twice"):
        merge_batch(BASE, [item, item], origin="polish", model="m")


def test_a_run_never_changes_a_reviewed_text_it_suggests() -> None:
    reviewed = BASE.with_paragraphs(
        {0: BASE.paragraphs[0].replace(reviewed=True), 2: BASE.paragraphs[2].replace(reviewed=True)}
    )
    items = [
        BatchItem.based_on(reviewed.paragraphs[0], "One, polished.", reason="Smoother.", category="fluency"),
        BatchItem.based_on(reviewed.paragraphs[2], "Three"),
    ]  # the selected text already: unchanged
    out = merge_batch(reviewed, items, origin="polish", model="m1")
    assert out.accepted == ("a",) and out.unchanged == ("c",)
    para = out.chapter.paragraphs[0]
    assert para.reviewed is True and para.selected_text == reviewed.paragraphs[0].selected_text
    (suggestion,) = para.pending
    assert suggestion.text == "One, polished." and suggestion.reason == "Smoother."
    assert suggestion.category == "fluency" and suggestion.based_on == reviewed.paragraphs[0].selected_translation_id
    assert [(s.paragraph_id, s.why) for s in out.suggested] == [("a", "protected")]
    assert out.chapter.paragraphs[2] is reviewed.paragraphs[2]


def test_a_kept_selection_keeps_reviewed() -> None:
    seen = BASE.paragraphs[0]
    item = BatchItem.based_on(seen, "AI text")
    person = append_version(seen, "my own text", origin="manual", model=None)[0].replace(reviewed=True)
    out = merge_batch(BASE.with_paragraphs({0: person}), [item], origin="polish", model="m1")
    a = out.chapter.paragraphs[0]
    assert a.selected_text == "my own text" and a.reviewed is True  # the reviewed text is still the one shown
