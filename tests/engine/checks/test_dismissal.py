"""Dismissals: kept on the paragraph as ``dismissed_checks``, through reloads, commits and merges, byte for byte;
gone by themselves when the source or the translation changes."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from engine.checks import check_chapter, dismiss, dismissed_codes, fingerprint, undismiss
from store.commit import ChapterStore
from store.fast_load import parse_fast
from store.loader import _parse_careful, load_chapter
from store.merge import BatchItem
from store.model import Chapter, Paragraph, TranslationVersion
from store.serialize import chapter_bytes, paragraph_utf8
from tests.engine.checks.fiction import rashomon

KANA = "It was one evening. A servant was waiting for the rain to やむ."  # KANA_LEFT
GATE = (
    "Under the wide gate there was no one but this man. Only a cricket clung to a great round pillar, its red "
    "lacquer peeling here and there. Since the Rashomon stands on Suzaku Avenue, one would expect two or three "
    "others, women in sedge hats or men in soft caps, to be sheltering from the rain as well. Yet apart from this "
    "man there was no one."
)


def write(folder: Path) -> Path:
    """A ja → en chapter: [1] with kana left in its translation, [2] translated well, [3] untranslated."""

    def done(pid: str, source: str, text: str) -> Paragraph:
        version = TranslationVersion(
            id="v1", text=text, origin="translation", model="m", created_at="2026-01-01T00:00:00Z"
        )
        return Paragraph(id=pid, text=source, translations=(version,), selected_translation_id="v1")

    chapter = Chapter(
        id="ch01",
        title="羅生門",
        source_language="ja",
        target_language="en",
        paragraphs=(
            done("p1", rashomon(4), KANA),
            done("p2", rashomon(40), "Nobody knows where the servant went."),
            Paragraph(id="p3", text=rashomon(5)),
        ),
    )
    path = folder / "ch01.json"
    path.write_bytes(chapter_bytes(chapter))
    return path


def dismiss_kana(store: ChapterStore) -> Chapter:
    seen = store.load().paragraph("p1")
    assert seen is not None and seen.selected_text is not None
    return store.update(lambda ch: ch.with_paragraphs({0: dismiss(ch.paragraphs[0], "KANA_LEFT", seen.selected_text)}))  # type: ignore[arg-type]


def test_the_fingerprint_is_sha256_of_both_texts() -> None:
    expected = hashlib.sha256("原文\u0000translation".encode()).hexdigest()[:16]
    assert fingerprint("原文", "translation") == expected and len(expected) == 16


def test_dismiss_adds_one_entry_and_is_idempotent() -> None:
    para = Paragraph(id="p1", text="src")
    once = dismiss(para, "KANA_LEFT", "text")
    assert once.extra == {"dismissed_checks": [{"code": "KANA_LEFT", "fingerprint": fingerprint("src", "text")}]}
    assert dismiss(once, "KANA_LEFT", "text") is once
    assert para.extra == {}  # frozen records: the original is untouched
    assert dismissed_codes(once, "text") == {"KANA_LEFT"} and dismissed_codes(once, "other") == frozenset()
    assert undismiss(once, "KANA_LEFT", "text").extra == {"dismissed_checks": []}


def test_a_dismissed_warning_is_left_out_unless_asked(tmp_path: Path) -> None:
    store = ChapterStore(write(tmp_path))
    assert [w.code for w in check_chapter(store.load())] == ["KANA_LEFT"]
    dismiss_kana(store)
    chapter = load_chapter(store.path)
    assert check_chapter(chapter) == []
    assert [w.code for w in check_chapter(chapter, include_dismissed=True)] == ["KANA_LEFT"]


def test_the_dismissal_survives_a_reload_byte_for_byte(tmp_path: Path) -> None:
    store = ChapterStore(write(tmp_path))
    dismiss_kana(store)
    raw = store.path.read_bytes()
    entry = {"code": "KANA_LEFT", "fingerprint": fingerprint(rashomon(4), KANA)}
    assert json.loads(raw)["paragraphs"][0]["dismissed_checks"] == [entry]
    fast, careful = parse_fast(raw), _parse_careful(raw, "ch01.json")
    assert fast is not None and fast == careful  # the fast loader takes it, and agrees
    assert chapter_bytes(fast) == raw and chapter_bytes(careful) == raw
    assert dismissed_codes(fast.paragraphs[0]) == {"KANA_LEFT"}
    assert fast.paragraphs[1].extra == {}


def test_a_commit_on_another_paragraph_keeps_it_byte_for_byte(tmp_path: Path) -> None:
    store = ChapterStore(write(tmp_path))
    dismiss_kana(store)
    before = paragraph_utf8(load_chapter(store.path).paragraphs[0])
    # Another process (a run) commits onto the file as it is on disk now.
    run = ChapterStore(store.path)
    result = run.commit_batch([BatchItem("p3", GATE, rashomon(5), None)], origin="translation", model="m")
    assert result.accepted == ("p3",)
    after = load_chapter(store.path)
    assert before in store.path.read_bytes() and paragraph_utf8(after.paragraphs[0]) == before
    assert check_chapter(after) == []


def test_a_commit_based_on_an_older_read_merges_onto_the_dismissal(tmp_path: Path) -> None:
    path = write(tmp_path)
    run = ChapterStore(path)
    base = run.load()  # the run read the chapter before the editor dismissed anything
    dismiss_kana(ChapterStore(path))
    item = BatchItem.based_on(base.paragraphs[1], "The servant's whereabouts, nobody knows.")
    run.commit_batch([item], origin="polish", model="m")
    merged = load_chapter(path)
    assert merged.paragraphs[1].selected_text == "The servant's whereabouts, nobody knows."
    assert dismissed_codes(merged.paragraphs[0]) == {"KANA_LEFT"}


def test_it_expires_when_the_translation_changes_and_comes_back_with_it(tmp_path: Path) -> None:
    store = ChapterStore(write(tmp_path))
    dismiss_kana(store)
    store.commit_batch(
        [BatchItem("p1", "It was one evening. A servant waited for the rain to やむ, still.", rashomon(4), "v1")],
        origin="polish",
        model="m",
    )
    changed = load_chapter(store.path)
    assert "dismissed_checks" in changed.paragraphs[0].extra  # kept, but no longer matching
    assert [w.code for w in check_chapter(changed)] == ["KANA_LEFT"]
    # Selecting the dismissed text again brings the dismissal back.
    back = store.update(lambda ch: ch.with_paragraphs({0: ch.paragraphs[0].replace(selected_translation_id="v1")}))
    assert check_chapter(back) == []


def test_it_expires_when_the_source_changes(tmp_path: Path) -> None:
    store = ChapterStore(write(tmp_path))
    dismiss_kana(store)
    edited = store.update(lambda ch: ch.with_paragraphs({0: ch.paragraphs[0].replace(text=rashomon(4) + "　")}))
    assert [w.code for w in check_chapter(edited)] == ["KANA_LEFT"]
