"""A person's edits as pure functions of a paragraph, without the app."""

from __future__ import annotations

import pytest

from store.edits import (
    EditError,
    edit_translation,
    keep_ours,
    needs_review,
    select_version,
    set_reviewed,
)
from store.model import Paragraph, append_version


def translated(text: str = "源", *versions: str) -> Paragraph:
    para = Paragraph(id="p1", text=text)
    for version in versions:
        para = append_version(para, version, origin="translation", model="m")[0]
    return para


def test_edit_appends_a_manual_version_and_selects_it() -> None:
    para = translated("源", "first")
    edited = edit_translation(para, "mine")
    assert edited.selected_text == "mine" and edited.translations[-1].origin == "manual"
    assert len(edited.translations) == 2 and edited.translations[0].text == "first"  # nothing dropped


def test_an_edit_that_changes_nothing_returns_the_same_paragraph() -> None:
    para = translated("源", "same")
    assert edit_translation(para, "same") is para
    assert set_reviewed(para, False) is para
    assert select_version(para, para.selected_translation_id or "") is para


def test_select_a_version_that_is_gone_is_refused_in_one_sentence() -> None:
    para = translated("源", "one", "two")
    first = para.translations[0].id
    assert select_version(para, first).selected_text == "one"
    with pytest.raises(EditError, match="version nope of paragraph p1 no longer exists"):
        select_version(para, "nope")


def test_keep_ours_selects_our_version_or_adds_our_text() -> None:
    para = translated("源", "ours", "theirs")
    ours = para.translations[0].id
    assert keep_ours(para, ours, "ours").selected_translation_id == ours
    gone = keep_ours(para, "pruned-id", "ours again")
    assert gone.selected_text == "ours again" and gone.translations[-1].origin == "manual"


def test_needs_review() -> None:
    empty = Paragraph(id="e", text="\u3000")
    untranslated = translated("源")
    fresh = translated("源", "text")
    reviewed = set_reviewed(fresh, True)
    assert not needs_review(empty, frozenset({"e"}))
    assert not needs_review(untranslated, frozenset())
    assert needs_review(untranslated, frozenset({"p1"}))  # a conflict always needs a look
    assert needs_review(fresh, frozenset()) and not needs_review(reviewed, frozenset())


def test_reviewed_is_about_a_text() -> None:
    para = set_reviewed(translated("源", "one", "two"), True)
    first = para.translations[0].id
    assert select_version(para, first).reviewed is False  # another text is selected: not reviewed
    assert edit_translation(para, "mine").reviewed is False
    assert edit_translation(para, "two").reviewed is True  # the same text: nothing changes
    same_text = append_version(para, "two", origin="polish", model="m")[0]
    assert same_text.reviewed is True and same_text.selected_text == "two"
    marked = set_reviewed(edit_translation(translated("源", "one"), "mine"), True)
    assert marked.selected_text == "mine" and marked.reviewed is True  # edit-and-mark: both in one change
