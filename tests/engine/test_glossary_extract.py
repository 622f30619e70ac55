"""Glossary candidates without a model, on two public-domain texts: names found, function words never."""

from __future__ import annotations

import re
from pathlib import Path

from engine.glossary.extract import extract_candidates

DATA = Path(__file__).resolve().parents[1] / "data"
FUNCTION_WORDS = {
    "こと",
    "もの",
    "それ",
    "これ",
    "ある",
    "いる",
    "云う",
    "する",
    "この",
    "その",
    "何故",
    "自分",
    "出来",
    "仕方",
    "一人",
}
HIRAGANA_ONLY = re.compile(r"^[ぁ-ゖー]+$")


def candidates(name: str) -> list[str]:
    lines = (DATA / name).read_text(encoding="utf-8").splitlines()
    return [c.source for c in extract_candidates(lines)]


def test_rashomon_s_servant_and_old_woman_come_first() -> None:
    found = candidates("rashomon.txt")
    assert found[:2] == ["下人", "老婆"] and "羅生門" in found[:10]
    assert not [c for c in found if c in FUNCTION_WORDS or HIRAGANA_ONLY.match(c)]


def test_botchan_s_names_are_among_the_first() -> None:
    found = candidates("botchan_1.txt")
    assert found[0] == "勘太郎" and "山城屋" in found[:10]
    assert not [c for c in found if c in FUNCTION_WORDS or HIRAGANA_ONLY.match(c)]


def test_names_before_honorifics_katakana_and_the_count_threshold() -> None:
    text = ["田中さんはロンドンへ行った。", "田中さんとヴィンセントさん。", "ロンドンの霧。", "一度だけの語。"]
    found = {c.source: c for c in extract_candidates(text, min_count=2)}
    assert found["田中"].kind == "character" and found["田中"].count == 2
    assert found["ロンドン"].count == 2 and "ヴィンセント" not in found  # once only: under --min-count 2
    assert "語" not in found and "一度" not in found
    assert [c.source for c in extract_candidates(text, min_count=1)][:2] == ["田中", "ロンドン"]
