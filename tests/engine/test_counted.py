"""Counts with their nouns."""

from __future__ import annotations

from engine.counted import counted


def test_one_is_singular_and_every_other_number_plural() -> None:
    assert [counted(n, "chunk") for n in (0, 1, 2, 21)] == ["0 chunks", "1 chunk", "2 chunks", "21 chunks"]
    assert counted(1, "missing paragraph") == "1 missing paragraph"
    assert counted(3, "entry", "entries") == "3 entries"
