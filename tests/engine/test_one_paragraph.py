"""A run about one paragraph (the workstation's "ask the model"): one chunk of just that paragraph, in the work
set or not, with the editor's instruction in the chunk message, against the scripted server."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from engine.chunks import paragraph_chunk
from engine.run_request import RunRequest
from store.commit import ChapterStore
from store.loader import load_chapter
from store.model import append_version
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, text_reply, tool_reply

A1, A2, A3, A4 = IDS[:4]  # A2 is empty


def translated_chapter(folder: Path) -> Path:
    """The test chapter with A3 already translated (so a plain translate run would leave it out)."""
    path = write_chapter(folder)
    store = ChapterStore(path)
    store.update(
        lambda ch: ch.with_paragraphs(
            {
                ch.positions[A3]: append_version(
                    ch.paragraphs[ch.positions[A3]], "Three.", origin="translation", model="m"
                )[0]
            }
        )
    )
    return path


async def test_a_translated_paragraph_is_translated_again_alone_with_the_instruction(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated_chapter(tmp_path)
    model_server.add(
        tool_reply(
            [("add_translation_batch", {"paragraphs": [{"paragraph_id": A3, "translated_text": "Three, formally."}]})]
        )
    )
    model_server.add(text_reply("Done."))
    request = RunRequest(
        path, "translate", settings_for(model_server.base_url), only_paragraph=A3, instruction="more formal"
    )
    events = await collect(request)
    started = kinds(events, "run_started")[0]
    assert (started.chunk_count, started.paragraph_count) == (1, 1)
    user = json.loads(model_server.requests[0].body)["messages"][1]["content"]
    assert f"[ID: {A3}]" in user and f"[ID: {A1}]" not in user and f"[ID: {A4}]" not in user
    assert user.rstrip().endswith("The editor's instruction for this work: more formal")
    para = load_chapter(path).paragraph(A3)
    assert para is not None and [v.text for v in para.translations] == ["Three.", "Three, formally."]
    assert kinds(events, "run_finished")[0].status == "complete"


async def test_the_chunk_boundaries_are_the_paragraph_itself(tmp_path: Path, model_server: ModelServer) -> None:
    path = translated_chapter(tmp_path)
    model_server.add(tool_reply([("get_next_paragraphs", {"paragraph_id": A3, "count": 1})]))
    model_server.add(
        tool_reply([("add_translation_batch", {"paragraphs": [{"paragraph_id": A3, "translated_text": "Three!"}]})])
    )
    model_server.add(text_reply("Done."))
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), only_paragraph=A3))
    results = kinds(events, "tool_result")
    assert results[0].error_code == "CHUNK_BOUNDARY"  # the chunk is that paragraph: nothing after it
    assert load_chapter(path).paragraph(A3).selected_text == "Three!"  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("task", "pid", "expected"),
    [
        ("translate", "nope", "paragraph nope is not in chapter 'ch01'"),
        ("polish", A1, f"paragraph {A1} has no translation to polish; translate it first"),
    ],
)
async def test_a_paragraph_that_cannot_be_run_is_refused_before_any_request(
    tmp_path: Path, model_server: ModelServer, task: str, pid: str, expected: str
) -> None:
    path = translated_chapter(tmp_path)
    before = path.read_bytes()
    request = RunRequest(path, task, settings_for(model_server.base_url), only_paragraph=pid)  # type: ignore[arg-type]
    events = await collect(request)
    finished = kinds(events, "run_finished")[0]
    assert finished.status == "bad_input" and expected in json.dumps(finished.summary.to_json())
    assert model_server.requests == [] and path.read_bytes() == before


def test_paragraph_chunk_keeps_the_index_and_refuses_an_empty_paragraph(tmp_path: Path) -> None:
    chapter = load_chapter(translated_chapter(tmp_path))
    chunk = paragraph_chunk(chapter, "polish", A3)
    assert chunk.paragraph_ids == (A3,) and chunk.paragraph_indexes == (3,)
    assert chunk.text.endswith("Translation: Three.")
    with pytest.raises(ValueError, match=f"paragraph {A2} is empty; there is nothing to translate"):
        paragraph_chunk(chapter, "translate", A2)
