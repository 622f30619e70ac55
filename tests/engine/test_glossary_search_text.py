"""``search_glossary``'s one-text lookup finds exactly what scanning every entry's fields finds, in order."""

from __future__ import annotations

import random

import pytest

from engine.glossary.index import fold
from engine.glossary.search_text import SearchText
from store.glossary import GlossaryEntry


def scanned(entries: list[GlossaryEntry], query: str, limit: int) -> list[GlossaryEntry]:
    needle = fold(query.strip())
    return [e for e in entries if any(needle in fold(t) for t in (e.source, e.target, *e.aliases))][:limit]


def entries(rng: random.Random) -> list[GlossaryEntry]:
    def word() -> str:
        return "".join(rng.choice("下人老婆門aBcé ") for _ in range(rng.randint(1, 6))).strip() or "門"

    return [
        GlossaryEntry(id=f"e{i}", source=word(), target=word(), aliases=[word() for _ in range(rng.randint(0, 2))])
        for i in range(200)
    ]


@pytest.mark.parametrize("seed", range(5))
def test_the_one_text_lookup_equals_the_scan(seed: int) -> None:
    rng = random.Random(seed)
    glossary = entries(rng)
    search = SearchText(glossary)
    for query in [
        "",
        " ",
        "下",
        "b",
        "Bc",
        "人老",
        "é",
        "zz",
        "a\x00b",
        *("".join(rng.sample("下人老婆門aBc", 2)) for _ in range(20)),
    ]:
        for limit in (1, 5, 500):
            assert search.find(query, limit) == scanned(glossary, query, limit), (query, limit)


def test_a_query_never_matches_across_two_fields() -> None:
    search = SearchText([GlossaryEntry(id="e1", source="下人", target="servant", aliases=["下郎"])])
    assert search.find("人s", 5) == [] and search.find("t下", 5) == [] and search.find("SERV", 5)[0].id == "e1"
