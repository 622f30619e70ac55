"""ChapterChecks: an update gives exactly the warnings a check from scratch gives, whatever changed (a translation,
a source, paragraphs added, removed or moved, a dismissal, the glossary), and checks only what it must."""

from __future__ import annotations

import random
from typing import Any

from engine.checks import GlossaryTerm, check_chapter, dismiss, incremental
from engine.checks.consistency import check_consistency
from engine.checks.incremental import ChapterChecks
from store.model import Chapter, Paragraph, TranslationVersion

SOURCES = ["「おはよう」と彼は言った。", "下人は雨やみを待っていた。", "三人の男が来た。", "", "雨は降っていた。"]
WORDINGS = [
    "Good morning, he said.",
    "“Good morning,” he said.",
    "The servant waited.",
    "The 下人 waited.",
    "Three men.",
    "A servant waited.",
    "Servants waited for the rain.",
]
SERVANT = GlossaryTerm("下人", "the servant")
GLOSSARIES: list[tuple[GlossaryTerm, ...]] = [
    (),
    (SERVANT,),
    (GlossaryTerm("下人", "a servant"), GlossaryTerm("男", "man")),
    (GlossaryTerm("下人", "the lackey", target_aliases=("下人",)), GlossaryTerm("雨", "the rain")),
]


def _para(rng: random.Random, n: int) -> Paragraph:
    source = rng.choice(SOURCES)
    if not source or rng.random() < 0.2:
        return Paragraph(id=f"p{n:07d}", text=source)
    return _translated(Paragraph(id=f"p{n:07d}", text=source), rng.choice(WORDINGS), n)


def _translated(para: Paragraph, text: str, n: int) -> Paragraph:
    version = TranslationVersion(id=f"v{n:07d}", text=text, origin="manual", created_at="2026-01-01T00:00:00Z")
    return para.replace(translations=(*para.translations, version), selected_translation_id=version.id)


def _edited(chapter: Chapter, rng: random.Random, n: int) -> Chapter:
    """``chapter`` with one random change: a translation, a source, a dismissal, a paragraph added or removed."""
    paragraphs = list(chapter.paragraphs)
    pos = rng.randrange(len(paragraphs))
    para = paragraphs[pos]
    kind = rng.choice(["translate", "source", "dismiss", "insert", "remove"])
    if kind == "translate" and para.text:
        paragraphs[pos] = _translated(para, rng.choice(WORDINGS), n)
    elif kind == "source":
        paragraphs[pos] = para.replace(text=rng.choice(SOURCES[:3]))
    elif kind == "dismiss" and para.selected_text is not None:
        found = [w.code for w in check_chapter(chapter, include_dismissed=True) if w.paragraph_id == para.id]
        if found:
            paragraphs[pos] = dismiss(para, rng.choice(found), para.selected_text)
    elif kind == "insert":
        paragraphs.insert(pos, _para(rng, n))
    elif kind == "remove" and len(paragraphs) > 2:
        del paragraphs[pos]
    return chapter.replace(paragraphs=tuple(paragraphs))


def test_updates_give_what_a_check_from_scratch_gives() -> None:
    rng = random.Random(23)
    chapter = Chapter(
        id="c", source_language="ja", target_language="en", paragraphs=tuple(_para(rng, n) for n in range(40))
    )
    checks = ChapterChecks.of(chapter)
    glossary: tuple[GlossaryTerm, ...] = ()
    inconsistent = 0
    for n in range(40, 240):
        chapter = _edited(chapter, rng, n)
        if n % 10 == 0:
            glossary = rng.choice(GLOSSARIES)
        updated = checks.update(chapter, glossary)
        assert updated is not None
        checks = updated
        fresh = ChapterChecks.of(chapter, glossary)
        assert checks.listed(include_dismissed=True) == check_chapter(chapter, glossary, include_dismissed=True)
        assert checks.listed() == check_chapter(chapter, glossary)
        assert checks.warnings.by_id == fresh.warnings.by_id and checks.warnings.count == fresh.warnings.count
        assert checks.warnings.positions == fresh.warnings.positions
        assert checks.inconsistent == check_consistency([chapter])[0]
        inconsistent += len(checks.inconsistent)
    assert inconsistent > 100  # the walk went through INCONSISTENT groups that came and went


def test_an_edit_checks_the_edited_paragraph_only(monkeypatch: Any) -> None:
    rng = random.Random(7)
    paragraphs = tuple(
        _translated(Paragraph(id=f"p{n:07d}", text=f"段落{n}は短い。"), f"Text {n}.", n) for n in range(50)
    )
    chapter = Chapter(id="c", source_language="ja", target_language="en", paragraphs=paragraphs)
    checks = ChapterChecks.of(chapter)
    seen: list[tuple[str, str]] = []
    real = incremental.findings

    def counting(source: str, translation: str, *args: Any) -> Any:
        seen.append((source, translation))
        return real(source, translation, *args)

    monkeypatch.setattr(incremental, "findings", counting)
    edited = chapter.with_paragraphs({7: _translated(chapter.paragraphs[7], "まだ text.", rng.randrange(99))})
    assert checks.update(edited) is not None
    assert seen == [(edited.paragraphs[7].text, "まだ text.")]


def test_another_glossary_reruns_only_the_checks_that_read_it(monkeypatch: Any) -> None:
    """A change of the approved terms keeps every other finding: only GLOSSARY_NOT_APPLIED and the script checks
    (which look past glossary targets) run again, once per pair, and the result is a check from scratch's."""
    paragraphs = tuple(
        _translated(Paragraph(id=f"p{n:07d}", text=f"下人{n}は待った。"), f"The man {n} waited.", n) for n in range(50)
    )
    chapter = Chapter(id="c", source_language="ja", target_language="en", paragraphs=paragraphs)
    checks = ChapterChecks.of(chapter)
    every: list[str] = []
    reading: list[str] = []
    real_every, real_reading = incremental.findings, incremental.glossary_findings
    monkeypatch.setattr(incremental, "findings", lambda s, t, *a: every.append(s) or real_every(s, t, *a))
    monkeypatch.setattr(incremental, "glossary_findings", lambda s, t, *a: reading.append(s) or real_reading(s, t, *a))
    updated = checks.update(chapter, (SERVANT,))
    assert updated is not None and every == [] and len(reading) == 50
    assert updated.listed() == check_chapter(chapter, (SERVANT,))
    assert updated.warnings.paragraphs_per_code()["GLOSSARY_NOT_APPLIED"] == 50
