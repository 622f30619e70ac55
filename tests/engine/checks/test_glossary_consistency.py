"""GLOSSARY_NOT_APPLIED (approved entries against one paragraph) and INCONSISTENT (one source, several wordings)."""

from __future__ import annotations

import pytest

from engine.checks import GlossaryTerm, check_workspace
from engine.checks.consistency import check_consistency
from store.model import Chapter, Paragraph, TranslationVersion
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon

SERVANT = GlossaryTerm("下人", "the servant")
OLD_WOMAN = GlossaryTerm("老婆", "the old woman", aliases=("老婆さん",))
ZHAO = GlossaryTerm("赵贵翁", "Old Mr. Zhao")

NOT_APPLIED = {
    "another word for the term": Case(
        rashomon(4),
        "It was one evening. A lackey was waiting for the rain to stop under the Rashomon gate.",
        glossary=(SERVANT,),
    ),
    "an alias in the source": Case("　老婆さんは笑った。", "The crone laughed.", glossary=(OLD_WOMAN,)),
    "a name in Chinese": Case(
        kuangren("【二】", 1)[:40],
        "Not a trace of moonlight today; I knew it was a bad sign. "
        "When I went out this morning, Zhao Guiweng had a strange look in his eyes.",
        "zh-Hans",
        glossary=(ZHAO,),
    ),
    "two entries, one applied": Case(
        rashomon(23),
        "The hag took one look at the servant and sprang up as if shot from a crossbow.",
        glossary=(SERVANT, OLD_WOMAN),
    ),
}
APPLIED = {
    "case ignored for Latin letters": Case(
        rashomon(40), "The servant's whereabouts, nobody knows.", glossary=(SERVANT,)
    ),
    "the term is not in this source": Case(
        rashomon(5), "Under the wide gate there was no one but this man.", glossary=(SERVANT,)
    ),
    "a name in Chinese": Case(
        kuangren("【二】", 1)[:40],
        "When I went out this morning, Old Mr. Zhao had a strange look in his eyes.",
        "zh-Hans",
        glossary=(ZHAO,),
    ),
    "a Latin source term in another case": Case(
        rashomon(8),
        "… the Sentimentalisme of this servant …",
        glossary=(GlossaryTerm("sentimentalisme", "Sentimentalisme"),),
    ),
    "no glossary": Case(rashomon(4), "It was one evening. A lackey was waiting for the rain to stop."),
}


@pytest.mark.parametrize("case", params(NOT_APPLIED))
def test_glossary_not_applied_fires(case: Case) -> None:
    assert_fires(case, "GLOSSARY_NOT_APPLIED")


@pytest.mark.parametrize("case", params(APPLIED))
def test_glossary_not_applied_stays_quiet(case: Case) -> None:
    assert_quiet(case, "GLOSSARY_NOT_APPLIED")


def test_glossary_message_names_the_entries() -> None:
    warning = assert_fires(NOT_APPLIED["two entries, one applied"], "GLOSSARY_NOT_APPLIED")
    assert warning.message == "glossary entry is not applied: “老婆 → the old woman”" and warning.span is None


def chapter(chapter_id: str, pairs: list[tuple[str, str | None]]) -> Chapter:
    """A ja → en chapter of (source, selected translation or None) paragraphs."""
    paragraphs = []
    for i, (source, translation) in enumerate(pairs):
        pid = f"{chapter_id[-1]}{i:07x}"
        if translation is None:
            paragraphs.append(Paragraph(id=pid, text=source))
            continue
        version = TranslationVersion(id="v1", text=translation, origin="translation", created_at="2026-01-01T00:00:00Z")
        paragraphs.append(Paragraph(id=pid, text=source, translations=(version,), selected_translation_id="v1"))
    return Chapter(id=chapter_id, source_language="ja", target_language="en", paragraphs=tuple(paragraphs))


def codes_by_index(warnings: list) -> dict[int, str]:
    return {w.paragraph_index: w.message for w in warnings if w.code == "INCONSISTENT"}


def test_inconsistent_within_a_chapter_names_the_other_wording() -> None:
    # 『对么？』 comes back in Lu Xun's section 八; here it was translated two ways.
    asks = kuangren("【八】", 3)
    ch = chapter(
        "ch1", [(asks, "“Is it right?”"), (kuangren("【八】", 4), "“Why ask about that?”"), (asks, "“Right?”")]
    )
    (warnings,) = check_consistency([ch])
    found = codes_by_index(warnings)
    assert found == {
        1: "the same source is translated differently in [3] 10000002",
        3: "the same source is translated differently in [1] 10000000",
    }
    assert {w.severity for w in warnings} == {"info"} and all(w.span is None for w in warnings)


def test_inconsistent_across_chapters_names_the_file() -> None:
    last = rashomon(40)
    one = chapter("ch1", [(rashomon(4), "It was one evening."), (last, "Nobody knows where the servant went.")])
    two = chapter("ch2", [(last.strip(), "The servant's whereabouts are unknown.")])
    three = chapter("ch3", [(last, "Nobody knows where the servant went.")])
    result = check_workspace([one, two, three], names=["ch1.json", "ch2.json", "ch3.json"], codes={"INCONSISTENT"})
    assert codes_by_index(result[0]) == {2: "the same source is translated differently in [1] 20000000 (ch2.json)"}
    assert codes_by_index(result[1]) == {
        1: "the same source is translated differently in [2] 10000001 (ch1.json), [1] 30000000 (ch3.json)"
    }
    assert codes_by_index(result[2]) == {1: "the same source is translated differently in [1] 20000000 (ch2.json)"}


def test_three_wordings_are_all_named() -> None:
    line = rashomon(35)
    ch = chapter("ch1", [(line, "“Is that so?”"), (line, "“Really?”"), (line, "“Truly?”"), (line, "“Really?”")])
    found = codes_by_index(check_consistency([ch])[0])
    assert found[1] == "the same source is translated differently in [2] 10000001, [3] 10000002, [4] 10000003"
    assert found[2] == "the same source is translated differently in [1] 10000000, [3] 10000002"


@pytest.mark.parametrize(
    ("pairs", "why"),
    [
        (
            [
                (rashomon(40), "Nobody knows where the servant went."),
                (rashomon(40), "Nobody  knows where the servant went.\n"),
            ],
            "same words, other spaces",
        ),
        ([("「……」", "“…”"), ("「……」", "“...”")], "no letters in the source"),
        ([("「あ」", "“Ah!”"), ("「あ」", "“Oh.”")], "one letter only"),
        ([(rashomon(40), "Nobody knows where the servant went."), (rashomon(40), None)], "one is untranslated"),
        ([(rashomon(4), "It was one evening."), (rashomon(5), "Nobody else was there.")], "different sources"),
    ],
)
def test_not_inconsistent(pairs: list[tuple[str, str | None]], why: str) -> None:
    assert codes_by_index(check_consistency([chapter("ch1", pairs)])[0]) == {}, why
