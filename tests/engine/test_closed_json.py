"""What a cut-off JSON object said before the cut: only members and items that closed, never a guessed value."""

from __future__ import annotations

import dataclasses
import json

import pytest

from engine.closed_json import ClosedPart, closed_part
from engine.cut_batch import repeats_one_sentence

ITEMS = [{"paragraph_id": f"p{n}", "translated_text": f'Text {n}, "quoted" \\ done.'} for n in range(3)]
WHOLE = json.dumps({"paragraphs": ITEMS}, ensure_ascii=False)


@pytest.mark.parametrize(
    ("raw", "members", "rest_starts"),
    [
        (WHOLE, {"paragraphs": ITEMS}, ""),
        (WHOLE[:-2], {"paragraphs": ITEMS}, ""),  # cut after the last item: every item closed
        (WHOLE[: WHOLE.index('"p2"') + 2], {"paragraphs": ITEMS[:2]}, '{"paragraph_id": "p'),
        (WHOLE[: WHOLE.index("Text 2") + 4], {"paragraphs": ITEMS[:2]}, '{"paragraph_id": "p2"'),
        (WHOLE[: WHOLE.index('"p0"') + 2], {"paragraphs": []}, '{"paragraph_id"'),
        ('{"paragraph_id": "a", "count": 12', {"paragraph_id": "a"}, "12"),  # 12 may be the start of 123
        ('{"paragraph_id": "a", "count": 12}', {"paragraph_id": "a", "count": 12}, ""),
        ('{"paragraph_id": "a", "cou', {"paragraph_id": "a"}, '"cou'),
        ('```json\n{"a": [1, 2, 3', {"a": [1, 2]}, "3"),
        ("", {}, ""),
        ("not json", {}, ""),
        ('{"a": {"b": "c', {}, '{"b"'),  # a cut object is left out whole
    ],
)
def test_only_what_closed_is_kept(raw: str, members: dict, rest_starts: str) -> None:
    closed = closed_part(raw)
    assert closed.members == members
    assert closed.rest.startswith(rest_starts) and (rest_starts or closed.rest == "")


def test_hostile_text_is_not_decoded() -> None:
    assert closed_part("{" + '"a":[' * 100_000) == ClosedPart()
    assert closed_part('{"a": "' + "x" * 1_000_000).members == {}


def test_a_repetition_loop_is_one_sentence_written_again_and_again() -> None:
    assert repeats_one_sentence("The rain kept falling. " * 5)
    assert repeats_one_sentence("雨はまだ降り続いていた。" * 3)
    assert not repeats_one_sentence("The rain kept falling. The servant waited. Nobody came. The rain kept falling.")
    assert not repeats_one_sentence("Yes. Yes. Yes. Yes.")  # too short to be a loop


def test_nothing_longer_than_the_argument_limit_is_read() -> None:
    from engine.client.response import ToolCall
    from engine.cut_batch import cut_batch
    from engine.text_answers import MAX_ANSWER_CHARS, text_items
    from engine.tools.raw_arguments import MAX_ARGUMENT_CHARS

    head = json.dumps({"paragraphs": ITEMS})[:-2]  # three closed items, the list left open
    raw = head + ", " + json.dumps({"paragraph_id": "x", "translated_text": "y" * MAX_ARGUMENT_CHARS})[:-2]
    call = ToolCall("c", "add_translation_batch", raw, None, "cut", error_code="ARGUMENTS_TRUNCATED")
    assert cut_batch(call).items == ()
    assert len(cut_batch(dataclasses.replace(call, arguments_raw=head)).items) == 3
    assert text_items("[ID: a] b\n" + "x" * MAX_ANSWER_CHARS) is None
