"""A person's edits to one paragraph, as pure functions, and what still needs their review.

Each edit returns the paragraph itself when nothing would change, so the caller can skip the write (the
file keeps its bytes). The workstation applies them through ``ChapterStore.update`` (locked, merged onto
the file as it is on disk now); they are tested here without any UI.
"""

from __future__ import annotations

from typing import Literal

from store.model import Paragraph, accept_suggestion, append_version, reject_suggestion, with_selection

ConflictChoice = Literal["keep_theirs", "keep_ours", "edited"]


class EditError(ValueError):
    """An edit that no longer applies (the version is gone); one sentence."""


def edit_translation(para: Paragraph, text: str) -> Paragraph:
    """``text`` appended as a ``manual`` version and selected; unchanged if it equals the selected text."""
    if para.selected_text == text:
        return para
    return append_version(para, text, origin="manual", model=None)[0]


def select_version(para: Paragraph, version_id: str) -> Paragraph:
    """The paragraph with ``version_id`` selected; ``EditError`` when that version no longer exists."""
    if all(v.id != version_id for v in para.translations):
        raise EditError(f"version {version_id} of paragraph {para.id} no longer exists")
    return with_selection(para, version_id)


def _pending(para: Paragraph, version_id: str) -> None:
    if all(v.id != version_id for v in para.pending):
        raise EditError(f"version {version_id} of paragraph {para.id} is not a pending suggestion")


def accept(para: Paragraph, version_id: str) -> Paragraph:
    """The pending suggestion ``version_id`` selected and accepted, the paragraph reviewed; ``EditError`` when it is
    not pending (accepted, rejected or gone)."""
    _pending(para, version_id)
    return accept_suggestion(para, version_id)


def reject(para: Paragraph, version_id: str) -> Paragraph:
    """The pending suggestion ``version_id`` rejected, nothing else changed; ``EditError`` when it is not pending."""
    _pending(para, version_id)
    return reject_suggestion(para, version_id)


def edit_and_accept(para: Paragraph, version_id: str, text: str) -> Paragraph:
    """The editor's own text for a suggestion: the suggestion accepted, then ``text`` (when it differs) appended as a
    ``manual`` version and selected; the paragraph is reviewed."""
    accepted = accept(para, version_id)
    if accepted.selected_text == text:
        return accepted
    return append_version(accepted, text, origin="manual", model=None)[0].replace(reviewed=True)


def set_reviewed(para: Paragraph, reviewed: bool) -> Paragraph:
    """The paragraph marked reviewed (or not)."""
    return para if para.reviewed == reviewed else para.replace(reviewed=reviewed)


def keep_ours(para: Paragraph, our_version_id: str | None, our_text: str) -> Paragraph:
    """Resolve a conflict for the run's text: select our version if it is still there, else add our text."""
    if our_version_id is not None and any(v.id == our_version_id for v in para.translations):
        return select_version(para, our_version_id)
    return edit_translation(para, our_text)


def needs_review(para: Paragraph, conflict_ids: frozenset[str], warning_ids: frozenset[str] = frozenset()) -> bool:
    """A paragraph the editor still has to look at: a conflict, a suggestion waiting to be accepted or rejected, a
    translation with QA warnings nobody dismissed (``warning_ids``; marking it reviewed does not settle them), or a
    translation not yet marked reviewed."""
    if para.is_empty:
        return False
    if para.id in conflict_ids or para.pending:
        return True
    if para.selected_translation_id is None:
        return False
    return not para.reviewed or para.id in warning_ids
