"""The glossary in a run: the chunk message's Glossary section, the model's tools, and edits during a run."""

from __future__ import annotations

import json
from pathlib import Path

from engine.glossary.index import GlossaryIndex
from engine.glossary.run_glossary import RunGlossary
from engine.run_request import RunRequest
from engine.services import TaskService
from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entry
from store.glossary_read import entry_from
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes
from store.workspace import Workspace
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.support.model_server import ModelServer, RecordedRequest, Scripted, text_reply, tool_reply

A1, A2, A3, A4, A5, A6, A7, A8 = IDS


def entry(eid: str, source: str, target: str, **extra: object) -> GlossaryEntry:
    return entry_from({"id": eid, "source": source, "target": target, **extra})


def glossary_of(folder: Path, *entries: GlossaryEntry) -> RunGlossary:
    folder.mkdir(exist_ok=True)
    store = GlossaryStore(Workspace(folder))
    for e in entries:
        store.change(add_entry(e))
    return RunGlossary(store, model="test-model")


def messages(path: Path, glossary: RunGlossary) -> list[str]:
    service = TaskService(load_chapter(path), "translate", chunk_chars=300, glossary=glossary)
    return [c.user_message for c in service.loop_configs()]


def test_the_chunk_message_lists_the_entries_it_mentions_in_order(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)  # chunk 1: A1 A3 A4 A6 (下人, 羅生門 … 鴉); chunk 2: A7 A8 (下人)
    glossary = glossary_of(
        tmp_path,
        entry("e1", "鴉", "crows", note="a flock"),
        entry("e2", "羅城門", "the Rashomon gate", kind="place", aliases=["羅生門"]),  # found by its alias
        entry("e3", "下人", "the servant", kind="character", status="proposed", origin="model"),
        entry("e4", "地震", "earthquakes"),
        entry("e5", "京都", "Kyoto", kind="place"),
    )
    first, second = messages(path, glossary)
    assert first.endswith(
        "\n\nGlossary\n"
        "下人 → the servant (character) (proposed)\n"  # first mentioned in A1
        "羅城門 → the Rashomon gate (place)\n"  # A1, after 下人
        "京都 → Kyoto (place)\n"  # A4: 京都 comes before 地震
        "地震 → earthquakes (term)\n"
        "鴉 → crows (term; a flock)\n"
    )
    assert second.endswith("\n\nGlossary\n下人 → the servant (character) (proposed)\n")
    # a glossary without any term of a chunk adds nothing to its message
    none = glossary_of(tmp_path / "other", entry("x", "面皰", "pimple"))
    plain = TaskService(load_chapter(path), "translate", chunk_chars=300).loop_configs()
    assert messages(path, none)[0] == plain[0].user_message and "Glossary" not in plain[0].user_message


def test_latin_terms_match_case_insensitively_and_metacharacters_are_text(tmp_path: Path) -> None:
    index = GlossaryIndex(
        [
            entry("a", "Sentimentalisme", "sentimentalism"),
            entry("b", "a.*b", "x"),
            entry("c", "雨", "rain"),
            entry("d", "(K)", "k"),
        ]
    )
    found = index.occurring("今日のSENTIMENTALISMEは雨。a.*b と (k) と axb")
    assert [e.id for e in found] == ["a", "c", "b", "d"]
    assert index.occurring("nothing here") == [] and GlossaryIndex([]).occurring("雨") == []


def test_the_system_prompt_and_tools_are_byte_identical_whatever_the_glossary_holds(tmp_path: Path) -> None:
    path = write_chapter(tmp_path)
    empty = TaskService(load_chapter(path), "translate", chunk_chars=300, glossary=glossary_of(tmp_path / "e"))
    full = TaskService(
        load_chapter(path),
        "translate",
        chunk_chars=300,
        glossary=glossary_of(tmp_path / "f", entry("e1", "下人", "the servant"), entry("e2", "鴉", "crows")),
    )
    configs = empty.loop_configs() + full.loop_configs()
    assert len({c.system_prompt for c in configs}) == 1
    assert len({json.dumps(c.tools, ensure_ascii=False) for c in configs}) == 1
    # A translation is offered the batch and the proposal (the chunk message already lists the glossary's entries).
    assert [t["function"]["name"] for t in configs[0].tools] == ["add_translation_batch", "propose_glossary_entry"]


async def test_a_character_proposed_in_chunk_1_is_in_chunk_2_s_message(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    propose = {"source": "下人", "target": "the servant", "kind": "character", "gender": "male", "note": "never named"}
    conflicting = {"source": "下人", "target": "the lackey"}

    def batch(*pids: str) -> dict:
        return {"paragraphs": [{"paragraph_id": p, "translated_text": f"the servant of {p}"} for p in pids]}

    model_server.add(
        tool_reply([("propose_glossary_entry", propose)]),
        tool_reply([("propose_glossary_entry", conflicting), ("search_glossary", {"query": "servant"})]),
        tool_reply([("add_translation_batch", batch(A1, A3, A4, A6))]),
        tool_reply([("add_translation_batch", batch(A7, A8))]),
    )
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300))
    results = kinds(events, "tool_result")
    assert results[0].success and results[0].result["entry"]["status"] == "proposed"
    assert results[1].error_code == "GLOSSARY_CONFLICT"
    assert results[1].result["existing"]["target"] == "the servant"
    assert results[2].result["count"] == 1
    chunk_2 = model_server.requests[3].json["messages"][1]["content"]
    assert chunk_2.endswith("Glossary\n下人 → the servant (character; male; never named) (proposed)\n")
    chunk_1 = model_server.requests[0].json["messages"][1]["content"]
    assert "Glossary" not in chunk_1  # nothing was in the glossary when chunk 1 started
    saved = GlossaryStore(Workspace(tmp_path)).load().entries
    assert [(e.source, e.status, e.origin, e.model) for e in saved] == [("下人", "proposed", "model", "test-model")]
    assert events[-1].status == "complete"


async def test_a_person_s_glossary_edit_during_a_run_is_kept_and_used(
    tmp_path: Path, model_server: ModelServer
) -> None:
    path = write_chapter(tmp_path)
    store = GlossaryStore(Workspace(tmp_path))
    store.change(add_entry(entry("p0", "鴉", "crows")))

    def batch(*pids: str) -> dict:
        return {"paragraphs": [{"paragraph_id": p, "translated_text": f"text {p}"} for p in pids]}

    model_server.add(
        tool_reply([("propose_glossary_entry", {"source": "羅生門", "target": "the Rashomon gate", "kind": "place"})])
    )

    def answer(request: RecordedRequest) -> Scripted:
        if len(model_server.requests) == 2:
            # The editor adds an entry by hand while chunk 1 runs (the whole file rewritten, as an editor saves).
            data = json.loads((tmp_path / "glossary.json").read_text(encoding="utf-8"))
            data["entries"].append({"id": "p1", "source": "下人", "target": "the servant", "note": "by hand"})
            (tmp_path / "glossary.json").write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
            return tool_reply([("add_translation_batch", batch(A1, A3, A4, A6))])
        return tool_reply([("add_translation_batch", batch(A7, A8))])

    model_server.responder = answer
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=300))
    assert events[-1].status == "complete"
    saved = {e.id: e for e in GlossaryStore(Workspace(tmp_path)).load().entries}
    assert {"p0", "p1"} <= set(saved) and any(e.source == "羅生門" for e in saved.values())
    chunk_2 = model_server.requests[2].json["messages"][1]["content"]
    assert "下人 → the servant (term; by hand)" in chunk_2


async def test_an_approved_term_missing_from_a_translation_is_a_batch_warning(
    tmp_path: Path, model_server: ModelServer
) -> None:
    chapter = Chapter(
        id="c",
        title="t",
        source_language="ja",
        target_language="en",
        paragraphs=(Paragraph(id="p1", text="下人が雨やみを待っていた。"),),
    )
    path = tmp_path / "c.json"
    path.write_bytes(chapter_bytes(chapter))
    GlossaryStore(Workspace(tmp_path)).change(add_entry(entry("e", "下人", "the servant")))
    model_server.add(
        tool_reply(
            [
                (
                    "add_translation_batch",
                    {
                        "paragraphs": [
                            {"paragraph_id": "p1", "translated_text": "A lackey waited for the rain to stop."}
                        ]
                    },
                )
            ]
        ),
        text_reply("ok"),
    )
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url)))
    warnings = kinds(events, "tool_result")[0].result["warnings"]
    assert [w["code"] for w in warnings] == ["GLOSSARY_NOT_APPLIED"] and "the servant" in warnings[0]["message"]


async def test_a_broken_glossary_refuses_the_run_in_one_line(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    (tmp_path / "glossary.json").write_text('{"format": "proofdesk.glossary/1", "entries": [}')
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url)))
    assert events[-1].status == "bad_input" and "glossary.json:1:" in events[-1].summary.error
    assert model_server.requests == []
