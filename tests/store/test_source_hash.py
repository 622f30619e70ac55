"""Every new version records the hash of the source it was made for; a changed source makes the selection stale."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson

from store.edits import edit_translation
from store.fast_load import parse_fast
from store.loader import load_chapter
from store.model import Chapter, Paragraph, TranslationVersion, append_version, source_hash_of
from store.serialize import chapter_bytes


def test_the_hash_is_16_hex_of_the_sha256_of_the_utf8_source() -> None:
    text = "「おはよう」と彼女は言った。"
    assert source_hash_of(text) == hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def test_new_versions_record_it_and_a_changed_source_is_stale() -> None:
    para, version = append_version(Paragraph(id="p", text="一。"), "One.", origin="translation", model="m")
    assert version.source_hash == source_hash_of("一。") and not para.stale
    changed = para.replace(text="一つ。")
    assert changed.stale
    assert not edit_translation(changed, "One, again.").stale  # a person's new text is made for the new source


def test_versions_from_before_the_hash_are_never_stale() -> None:
    old = TranslationVersion(id="v", text="One.", origin="translation", created_at="2026-01-01T00:00:00Z")
    assert not Paragraph(id="p", text="changed", translations=(old,), selected_translation_id="v").stale


def test_a_hashed_version_is_written_after_the_usual_keys_and_loads_on_the_fast_path(tmp_path: Path) -> None:
    para, _ = append_version(Paragraph(id="p", text="一。"), "One.", origin="translation", model="m")
    data = chapter_bytes(Chapter(id="c", paragraphs=(para,)))
    version = orjson.loads(data)["paragraphs"][0]["translations"][0]
    assert list(version) == ["id", "text", "origin", "model", "created_at", "source_hash"]
    fast = parse_fast(data)
    assert fast is not None and fast == load_chapter_from(tmp_path, data)
    assert fast.paragraphs[0].selected.source_hash == source_hash_of("一。")  # type: ignore[union-attr]
    assert chapter_bytes(fast) == data  # the bytes cut from the file are the canonical ones


def load_chapter_from(folder: Path, data: bytes) -> Chapter:
    path = folder / "c.json"
    path.write_bytes(data)
    return load_chapter(path)
