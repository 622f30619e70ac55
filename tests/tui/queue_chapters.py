"""Chapters holding pending suggestions, built with the store's own merge (as a run's batch would store them)."""

from __future__ import annotations

from store.merge import BatchItem, merge_batch
from store.model import Chapter, Paragraph
from tests.tui.chapters import STAMP, version


def queue_chapter() -> Chapter:
    """Five paragraphs, three with a pending suggestion each, in chapter order:

    - [1] ``style`` by model-a, a word changed: "This is the first paragraph." → "This is the opening paragraph.";
    - [2] (reviewed) ``grammar`` by model-b, no reason;
    - [3] empty; [4] translated, no suggestion;
    - [5] ``mistranslation`` by model-a, rewritten, and outdated (the editor selected another version after the
      model read the paragraph).
    """
    base = Chapter(
        id="queue",
        title="Queue test",
        source_language="ja",
        target_language="en",
        paragraphs=(
            _translated("p0000001", "一つ目の段落です。", "This is the first paragraph."),
            _translated("p0000002", "二つ目の段落です。", "The second paragraph.").replace(reviewed=True),
            Paragraph(id="p0000003", text=""),
            _translated("p0000004", "四つ目の段落です。", "The fourth paragraph."),
            Paragraph(
                id="p0000005",
                text="雨が降っていた。",
                translations=(version("v0000005", "Rain fell."), version("v0000006", "It rained.", "polish")),
                selected_translation_id="v0000005",
            ),
        ),
    )
    p = base.paragraphs
    first = merge_batch(
        base,
        [
            BatchItem.based_on(p[0], "This is the opening paragraph.", reason="Smoother.", category="style"),
            BatchItem.based_on(
                p[4], "Rain fell on the gate all night.", reason="Closer to the source.", category="mistranslation"
            ),
        ],
        origin="proofreading",
        model="model-a",
        apply=False,
        created_at=STAMP,
    ).chapter
    second = merge_batch(
        first,
        [BatchItem.based_on(first.paragraphs[1], "The 2nd paragraph.", category="grammar")],
        origin="proofreading",
        model="model-b",
        apply=False,
        created_at=STAMP,
    ).chapter
    outdated = second.paragraphs[4].replace(selected_translation_id="v0000006")
    return second.with_paragraphs({4: outdated})


def _translated(pid: str, source: str, text: str) -> Paragraph:
    vid = "v" + pid[1:]
    return Paragraph(id=pid, text=source, translations=(version(vid, text),), selected_translation_id=vid)


def protected_chapter() -> Chapter:
    """Three translated paragraphs: [1] reviewed, [2] with a hand-written (``manual``) selection, [3] neither."""
    return Chapter(
        id="protected",
        title="Protected",
        source_language="ja",
        target_language="en",
        paragraphs=(
            _translated("p0000001", "一つ目の段落です。", "The first paragraph.").replace(reviewed=True),
            Paragraph(
                id="p0000002",
                text="二つ目の段落です。",
                translations=(
                    version("v0000002", "The second paragraph."),
                    version("v0000003", "My own second paragraph.", "manual", model=None),
                ),
                selected_translation_id="v0000003",
            ),
            _translated("p0000004", "三つ目の段落です。", "The third paragraph."),
        ),
    )
