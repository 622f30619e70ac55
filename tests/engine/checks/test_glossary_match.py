"""GLOSSARY_NOT_APPLIED accepts what an editor would: for a target in Latin script, any case, with or without a
leading article (a/an/the), the last word with a plural s/es, or a target alias of the entry; everything else still
fires (another word, a longer word, an irregular plural, part of the target, a target in another script)."""

from __future__ import annotations

import pytest

from engine.checks import GlossaryTerm
from engine.checks.glossary import GlossaryTerms, as_terms, target_spans
from store.glossary import Glossary, GlossaryEntry, glossary_bytes
from store.glossary_read import entry_from, parse_glossary
from tests.engine.checks.cases import Case, assert_fires, assert_quiet, params
from tests.engine.checks.fiction import kuangren, rashomon

SERVANT = GlossaryTerm("下人", "the servant")
OLD_WOMAN = GlossaryTerm("老婆", "the old woman")
CORPSE = GlossaryTerm("死骸", "the corpse")
FOX = GlossaryTerm("狐狸", "the fox")
SWORD = GlossaryTerm("太刀", "a long sword")
THIEF = GlossaryTerm("盗人", "the thief", target_aliases=("the robber",))
DEAD = GlossaryTerm("死人", "the dead man")
GATE = GlossaryTerm("門", "the gate")
PIMPLE = GlossaryTerm("面皰", "the pimple")


def sentence(paragraph: int, word: str) -> str:
    """The sentence of Rashomon's paragraph ``[paragraph]`` that holds ``word``."""
    return next(s + "。" for s in rashomon(paragraph).split("。") if word in s)


APPLIED = {
    "an indefinite article": Case(
        rashomon(4),
        "It was one evening. A servant was waiting for the rain to stop under the Rashomon gate.",
        glossary=(SERVANT,),
    ),
    "no article": Case(sentence(11, "嚔"), "Our servant sneezed loudly, then got up wearily.", glossary=(SERVANT,)),
    "a plural s": Case(
        sentence(17, "臭気"),
        "The servant covered his nose against the stench of those rotting corpses without thinking.",
        glossary=(SERVANT, CORPSE),
    ),
    "a plural es": Case(sentence(6, "狐狸"), "Foxes made their dens there.", glossary=(FOX,)),
    "another case and article": Case(
        rashomon(23),
        "AN OLD WOMAN took one look at the servant and sprang up as if shot from a crossbow.",
        glossary=(SERVANT, OLD_WOMAN),
    ),
    "the target's article changed": Case(
        sentence(34, "冷然"),
        "The servant sheathed the long sword and listened coldly, his left hand on its hilt.",
        glossary=(SERVANT, SWORD),
    ),
    "a target alias": Case(
        sentence(21, "盗人"),
        "Of course the servant had long forgotten that a moment ago he himself had meant to become a robber.",
        glossary=(SERVANT, THIEF),
    ),
    "an irregular plural given as a target alias": Case(
        rashomon(32)[:40],
        "“Pulling the hair of the dead may be a wicked thing. But the dead men here all deserved as much.”",
        glossary=(GlossaryTerm("死人", "the dead man", target_aliases=("the dead men",)),),
    ),
    "a possessive": Case(rashomon(40), "Nobody knows the servant's whereabouts.", glossary=(SERVANT,)),
}
STILL_FIRES = {
    "another word": Case(
        rashomon(4),
        "It was one evening. A lackey was waiting for the rain to stop under the Rashomon gate.",
        glossary=(SERVANT,),
    ),
    "a longer word": Case(
        sentence(5, "広い門"), "Under the wide gateway there was no one but this man.", glossary=(GATE,)
    ),
    "another ending than s or es": Case(
        sentence(14, "面皰"), "It was a pimpled cheek, red with pus in a short beard.", glossary=(PIMPLE,)
    ),
    "an irregular plural": Case(
        rashomon(32)[:40],
        "“Pulling the hair of the dead may be a wicked thing. But the dead men here all deserved as much.”",
        glossary=(DEAD,),
    ),
    "only part of the target": Case(
        sentence(29, "見開"),
        "Then the woman opened her eyes wider and stared hard at the servant's face.",
        glossary=(SERVANT, OLD_WOMAN),
    ),
    "the alias of another entry": Case(
        sentence(21, "盗人"),
        "Of course the servant had long forgotten that a moment ago he himself had meant to become a bandit.",
        glossary=(SERVANT, THIEF),
    ),
    "a target in Han is matched as written": Case(
        kuangren("【二】", 1)[:40],
        "今天全没月光，我知道不妙。早上小心出门，赵老头的眼色便怪。",
        "zh-Hans",
        glossary=(GlossaryTerm("赵贵翁", "赵贵翁"),),
    ),
}


@pytest.mark.parametrize("case", params(APPLIED))
def test_what_an_editor_accepts_is_applied(case: Case) -> None:
    assert_quiet(case, "GLOSSARY_NOT_APPLIED")


@pytest.mark.parametrize("case", params(STILL_FIRES))
def test_what_misses_the_term_still_fires(case: Case) -> None:
    assert_fires(case, "GLOSSARY_NOT_APPLIED")


def test_a_glossary_target_alias_is_not_kanji_left() -> None:
    kyoto = GlossaryTerm("京都", "Kyoto", target_aliases=("Kyō (京)",))
    case = Case(
        sentence(11, "京都"), "The evening chill of Kyō (京) already made one long for a brazier.", glossary=(kyoto,)
    )
    assert_quiet(case, "CJK_LEFT")
    assert_quiet(case, "GLOSSARY_NOT_APPLIED")
    assert target_spans(case.translation, (kyoto,)) == [(21, 28)]


def test_many_terms_are_found_as_a_few() -> None:
    """A big glossary is looked up through its automaton: the same entries, in glossary order, as one by one."""
    filler = [GlossaryTerm(f"語{n:05d}", f"word {n}") for n in range(2000)]
    terms = as_terms([*filler[:700], OLD_WOMAN, *filler[700:], SERVANT])
    assert isinstance(terms, GlossaryTerms) and as_terms(terms) is terms
    case = Case(rashomon(23), "The hag took one look at the man and sprang up.", glossary=terms)
    warning = assert_fires(case, "GLOSSARY_NOT_APPLIED")
    assert warning.message == "glossary entries are not applied: “老婆 → the old woman”, “下人 → the servant”"


def test_target_aliases_are_kept_in_the_file_and_left_out_when_empty() -> None:
    plain = GlossaryEntry(id="e1", source="下人", target="the servant", created_at="2026-11-23T10:00:00Z")
    both = entry_from(
        {**plain.to_json(), "id": "e2", "source": "盗人", "target": "the thief", "target_aliases": ["the robber"]}
    )
    raw = glossary_bytes(Glossary(entries=(plain, both)))
    assert raw.count(b"target_aliases") == 1  # an entry without them is written as before
    again = parse_glossary(raw, "glossary.json")
    assert again.entries[1].target_aliases == ("the robber",) and again.entries[0].target_aliases == ()
