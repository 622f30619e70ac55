"""How a chunk ends with a model that does less than asked (design section 19), against the scripted server: results
that name what to do next, echoes and ``no changes`` in polish and proofread, summaries that count paragraphs
submitted and changed, the source refused as a translation, and the one fix turn for errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from engine.events import EngineEvent
from engine.loop_texts import ECHO_TEXT
from engine.run_request import RunRequest
from engine.tools.boundaries import START_NEXT
from store.loader import load_chapter
from store.model import append_version
from store.serialize import chapter_bytes
from tests.engine.loop_support import IDS, TEXTS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
WORK = [A1, A3, A4, A6, A7, A8]  # the non-empty paragraphs: one chunk
BATCH = "add_translation_batch"


def batch(*pairs: tuple[str, str]) -> dict[str, Any]:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": text} for pid, text in pairs]}


def everything(text: str = "text") -> dict[str, Any]:
    return batch(*((pid, f"{text} {pid}") for pid in WORK))


def translated(folder: Path) -> Path:
    """The test chapter with every non-empty paragraph translated as ``ai <id>``."""
    path = write_chapter(folder)
    chapter = load_chapter(path)
    paragraphs = tuple(
        p if p.is_empty else append_version(p, f"ai {p.id}", origin="translation", model="m0")[0]
        for p in chapter.paragraphs
    )
    path.write_bytes(chapter_bytes(chapter.replace(paragraphs=paragraphs)))
    return path


def request(path: Path, server: ModelServer, task: str = "translate") -> RunRequest:
    return RunRequest(chapter_path=path, task=task, settings=settings_for(server.base_url), chunk_chars=4000)  # type: ignore[arg-type]


def last_message(received: RecordedRequest) -> dict[str, Any]:
    message: dict[str, Any] = received.json["messages"][-1]
    return message


def tool_result(received: RecordedRequest) -> dict[str, Any]:
    message = last_message(received)
    assert message["role"] == "tool"
    result: dict[str, Any] = json.loads(message["content"])
    return result


def summary(events: list[EngineEvent]) -> Any:
    return kinds(events, "run_finished")[0].summary


# -- results that name what to do next ---------------------------------------------------------------------------


@pytest.mark.parametrize("task", ["translate", "polish", "proofread"])
async def test_asking_for_the_paragraph_before_the_chunk_is_told_the_chunk_starts_there_and_what_to_do(
    tmp_path: Path, model_server: ModelServer, task: str
) -> None:
    path = write_chapter(tmp_path) if task == "translate" else translated(tmp_path)
    model_server.add(
        tool_reply([("get_previous_paragraphs", {"paragraph_id": A1, "count": 2})]),
        tool_reply([(BATCH, everything())]),
    )
    events = await collect(request(path, model_server, task))
    result = tool_result(model_server.requests[1])
    assert result["error_code"] == "CHUNK_BOUNDARY" and result["available_count"] == 0
    assert result["error"].startswith(f"'{A1}' is the first paragraph of the current chunk: the chunk starts here")
    assert result["hint"].startswith(START_NEXT[task])
    assert START_NEXT["translate"] == "Translate the chunk now with add_translation_batch."
    assert summary(events).status == "complete"


async def test_an_empty_answer_is_answered_with_the_missing_paragraph_ids(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(text_reply(""), tool_reply([(BATCH, everything())]))
    events = await collect(request(path, model_server))
    assert last_message(model_server.requests[1]) == {
        "role": "user",
        "content": f"Your answer was empty. 6 paragraphs of this chunk still have no accepted submission: "
        f"{', '.join(WORK)}. Submit them with add_translation_batch, using each paragraph_id exactly as shown in "
        "[ID: …].",
    }
    assert summary(events).status == "complete"


# -- echoes and empty work in polish and proofread ----------------------------------------------------------------


def echo(received: RecordedRequest) -> Scripted:
    """A model that answers with the chunk message it was given."""
    return text_reply(received.json["messages"][1]["content"])


async def test_an_echo_is_reminded_once_and_the_chunk_is_not_complete(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    before = path.read_bytes()
    model_server.responder = echo
    events = await collect(request(path, model_server, "polish"))
    requests = model_server.requests
    assert len(requests) == 2  # the echo, the one reminder, the second echo: the chunk ends
    assert last_message(requests[1]) == {"role": "user", "content": ECHO_TEXT}
    assert "answer `no changes`" in ECHO_TEXT
    s = summary(events)
    assert (s.status, s.chunks[0].status, s.chunks[0].end_code) == ("incomplete", "incomplete", "NO_SUBMISSION")
    assert (s.paragraphs_done, s.paragraphs_submitted, s.paragraphs_changed) == (0, 0, 0)
    assert s.chunks[0].missing == WORK
    assert path.read_bytes() == before


async def test_no_changes_ends_a_polish_chunk_complete_with_nothing_changed(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    model_server.add(text_reply("No changes."))
    events = await collect(request(path, model_server, "polish"))
    s = summary(events)
    assert len(model_server.requests) == 1
    assert (s.status, s.paragraphs_total, s.paragraphs_done) == ("complete", 6, 6)
    assert (s.paragraphs_submitted, s.paragraphs_changed) == (0, 0)


async def test_a_reviser_that_stops_early_is_reminded_of_the_rest_and_counted_by_what_it_sent(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    model_server.add(
        tool_reply([(BATCH, batch((A1, "better A1"), (A3, f"ai {A3}")))]),  # one change, one sent back as it was
        text_reply("Done."),
        text_reply("no changes"),
    )
    events = await collect(request(path, model_server, "proofread"))
    rest = [A4, A6, A7, A8]
    assert last_message(model_server.requests[2])["content"] == (
        f"4 paragraphs of this chunk were neither submitted nor declared unchanged: {', '.join(rest)}. Submit what "
        "you change with add_translation_batch (paragraph_id as shown in [ID: …]), or answer `no changes`."
    )
    assert [r.missing for r in kinds(events, "reminder")] == [tuple(rest)]
    s = summary(events)
    assert (s.status, s.paragraphs_submitted, s.paragraphs_changed) == ("complete", 2, 1)
    assert (s.chunks[0].submitted, s.chunks[0].changed) == (2, 1)


async def test_a_reviser_that_submits_every_paragraph_is_done_without_another_turn(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    model_server.add(tool_reply([(BATCH, everything("polished"))]))
    events = await collect(request(path, model_server, "polish"))
    s = summary(events)
    assert len(model_server.requests) == 1 and s.chunks[0].turns == 1
    assert (s.status, s.paragraphs_done, s.paragraphs_submitted, s.paragraphs_changed) == ("complete", 6, 6, 6)


# -- no source as a translation -----------------------------------------------------------------------------------


async def test_a_proofread_that_sends_the_source_back_is_refused_and_the_translation_kept(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = translated(tmp_path)
    model_server.add(tool_reply([(BATCH, batch((A1, TEXTS[0])))]), text_reply("no changes"))
    events = await collect(request(path, model_server, "proofread"))
    assert tool_result(model_server.requests[1])["error_code"] == "SAME_AS_SOURCE"
    assert selected_texts(path)[A1] == f"ai {A1}"
    paragraph = load_chapter(path).paragraph(A1)
    assert paragraph is not None and len(paragraph.translations) == 1 and not paragraph.pending
    s = summary(events)
    assert s.tool_errors == {"SAME_AS_SOURCE": 1} and (s.paragraphs_submitted, s.paragraphs_changed) == (0, 0)


# -- one turn to fix errors ---------------------------------------------------------------------------------------

KANA = "The servant は waited."  # KANA_LEFT: severity error


async def test_errors_in_the_completing_batch_get_one_turn_to_fix_them(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(
        tool_reply([(BATCH, batch(*((pid, KANA if pid == A1 else f"text {pid}") for pid in WORK)))]),
        tool_reply([(BATCH, batch((A1, "The servant waited.")))]),
    )
    events = await collect(request(path, model_server))
    fix = last_message(model_server.requests[1])
    assert fix["role"] == "user"
    assert fix["content"].startswith(
        f"Every paragraph of this chunk is saved, but your last batch has errors: '{A1}' KANA_LEFT: "
    )
    assert fix["content"].endswith("or answer `no changes` to keep them.")
    s = summary(events)
    assert (s.status, s.chunks[0].turns) == ("complete", 2)
    assert selected_texts(path)[A1] == "The servant waited."


@pytest.mark.parametrize(
    "answer",
    [
        tool_reply([(BATCH, batch((A1, KANA + " Again.")))]),  # errors again
        tool_reply([("get_paragraph_info", {"paragraph_id": A1})]),  # only reading
        text_reply("Hmm."),
    ],
    ids=["errors-again", "reading", "text"],
)
async def test_the_fix_turn_comes_once_and_the_chunk_then_ends_complete(
    tmp_path: Path, model_server: ModelServer, answer: Scripted
) -> None:
    path = write_chapter(tmp_path)
    model_server.add(tool_reply([(BATCH, batch(*((pid, KANA) for pid in WORK)))]), answer)
    events = await collect(request(path, model_server))
    assert len(model_server.requests) == 2 and model_server.pending == 0
    s = summary(events)
    assert (s.status, s.chunks[0].turns, s.paragraphs_done) == ("complete", 2, 6)


async def test_a_batch_without_errors_ends_the_chunk_at_once(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    model_server.add(tool_reply([(BATCH, everything())]))
    events = await collect(request(path, model_server))
    assert len(model_server.requests) == 1 and summary(events).chunks[0].turns == 1


# -- what the command line says ----------------------------------------------------------------------------------


@pytest.mark.slow  # the installed binary, as a user runs it
def test_a_polish_run_of_echoes_says_nothing_was_done_and_exits_1(tmp_path: Path, model_server: ModelServer) -> None:
    from tests.engine.test_cli_run import run_cli

    path = translated(tmp_path)
    model_server.responder = echo
    args = ("--base-url", model_server.base_url, "--model", "m", "--chunk-chars", "4000")
    done = run_cli("run", path.name, "--task", "polish", *args, cwd=tmp_path)
    assert done.returncode == 1, done.stderr
    assert "ch01.json: incomplete · 0/6 paragraphs reviewed: 0 submitted, 0 changed · 0/1 chunks complete" in (
        done.stderr
    )
    assert f"chunk 1: incomplete NO_SUBMISSION (missing: {', '.join(WORK)})" in done.stderr
    model_server.responder = None
    model_server.add(tool_reply([(BATCH, batch((A1, "better A1")))]), text_reply("No changes."))
    done = run_cli("run", path.name, "--task", "polish", *args, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "ch01.json: complete · 6/6 paragraphs reviewed: 1 submitted, 1 changed · 1/1 chunks complete" in done.stderr
