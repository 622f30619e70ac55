"""Every report true, nothing written by accident (issue 25): the demo model only when asked for, usage as metadata,
control characters flagged. In-process through ``tui.cli.main`` and the engine, against real files."""

from __future__ import annotations

import asyncio
import dataclasses
import threading
from decimal import Decimal
from pathlib import Path

import pytest

from engine.config import ConfigError, RunDefaults, load_config
from engine.cost import Prices, cost_of
from engine.events import ToolCalled
from engine.run import run_chapter
from engine.run_request import RunRequest
from store.commit import ChapterStore
from tests.engine.loop_support import IDS, collect, kinds, selected_texts, settings_for, write_chapter
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, sse, text_reply, tool_chunks, tool_reply
from tui.cli import main

WORK = [pid for pid, i in zip(IDS, range(8), strict=True) if i not in (1, 4)]  # the non-empty paragraphs


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def chapter(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    return write_chapter(folder)


# -- item 3: a run with no model configured ---------------------------------------------------------------------


@pytest.mark.parametrize("environ", [{}, {"OPENAI_BASE_URL": "http://127.0.0.1:9/v1"}], ids=["nothing", "url only"])
def test_a_run_with_no_model_named_refuses_in_one_sentence_and_writes_nothing(
    chapter: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, environ: dict[str, str]
) -> None:
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    before = chapter.read_bytes()
    code, out, err = cli(capsys, "run", str(chapter), "--task", "translate")
    assert code == 2 and out == ""
    (line,) = err.splitlines()
    assert "no model is configured" in line and "--model NAME" in line and "--model demo" in line
    assert chapter.read_bytes() == before
    assert not (chapter.parent / ".proofdesk" / "traces").exists()


def test_a_headless_demo_run_says_it_is_the_demo(chapter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--model", "demo")
    assert code == 0
    assert "the demo model writes marked pseudo-translations" in err.splitlines()[0]


def test_a_run_with_nothing_to_do_says_why_writing_nothing(chapter: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = chapter.read_bytes()
    code, _, err = cli(capsys, "run", str(chapter), "--task", "polish", "--model", "demo")
    assert code == 0 and chapter.read_bytes() == before  # nothing failed, nothing written
    assert f"{chapter.name}: polish with demo: nothing to polish: no paragraph has a translation yet" in err
    assert cli(capsys, "run", str(chapter), "--task", "translate", "--model", "demo")[0] == 0
    code, _, err = cli(capsys, "run", str(chapter), "--task", "translate", "--model", "demo")
    assert code == 0 and "nothing to translate: every paragraph has a translation already" in err


# -- item 6: usage is metadata ------------------------------------------------------------------------------------


@pytest.mark.parametrize("value", [10**34, 1.5, "1e30", 1e30, -5, True, {"n": 1}], ids=repr)
async def test_a_usage_value_no_bill_has_never_fails_the_response(
    tmp_path: Path, model_server: ModelServer, value: object, caplog: pytest.LogCaptureFixture
) -> None:
    path = write_chapter(tmp_path)
    items = [{"paragraph_id": pid, "translated_text": f"text {pid}"} for pid in WORK]
    chunks = [*tool_chunks([("add_translation_batch", {"paragraphs": items})], usage=None)]
    chunks.append({"object": "chat.completion.chunk", "choices": [], "usage": usage_with(value)})
    model_server.add(Scripted(200, dict(SSE_HEADERS), sse(chunks)), text_reply("Done."))
    priced = settings_for(model_server.base_url)
    request = RunRequest.configured(
        path, "translate", dataclasses.replace(priced, prices=Prices.of(1e6, 1e6)), RunDefaults()
    )
    events = await collect(request)
    (finished,) = kinds(events, "run_finished")
    assert finished.status == "complete" and not kinds(events, "retry")
    assert all(selected_texts(path)[pid] == f"text {pid}" for pid in WORK)
    assert finished.summary.usage.get("prompt_tokens", 0) <= 10**12
    assert "is not a token count" in caplog.text


def usage_with(value: object) -> dict[str, object]:
    return {"prompt_tokens": value, "completion_tokens": 7, "total_tokens": value}


@pytest.mark.parametrize(
    ("usage", "prices"),
    [
        ({"prompt_tokens": 10**34, "completion_tokens": 10**30}, Prices(Decimal(1), Decimal(1))),
        ({"prompt_tokens": 1000, "completion_tokens": 1000}, Prices(Decimal("1e308"), Decimal("1e308"))),
        ({"prompt_tokens": 10**12, "cached_tokens": 10**12}, Prices(Decimal("9e999"), Decimal(1), Decimal("-9e999"))),
    ],
)
def test_cost_arithmetic_never_raises(usage: dict[str, int], prices: Prices) -> None:
    cost = cost_of(usage, prices)
    assert cost is None or isinstance(cost["total"], float)


@pytest.mark.parametrize("value", ["true", '"1"', "1e308", "-1"])
def test_a_price_that_is_no_price_is_refused_naming_the_key(tmp_path: Path, value: str) -> None:
    path = tmp_path / "config.toml"
    path.write_text(f'[profiles.p]\nmodel = "m"\nprice_input = {value}\nprice_output = 1\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="price_input"):
        load_config(path)


# -- item 4: cancel during a commit -------------------------------------------------------------------------------


class HeldStore(ChapterStore):
    """A real chapter store whose commits wait, once inside, until the test lets them go on."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self.entered = threading.Event()
        self.go_on = threading.Event()

    def commit_batch(self, items, *, origin, model, apply=True):  # type: ignore[no-untyped-def]
        self.entered.set()
        self.go_on.wait(30)
        return super().commit_batch(items, origin=origin, model=model, apply=apply)


async def test_a_cancel_during_a_commit_finishes_and_reports_it(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    items = [{"paragraph_id": pid, "translated_text": f"text {pid}"} for pid in WORK[:3]]
    model_server.add(tool_reply([("add_translation_batch", {"paragraphs": items})]), text_reply("more later"))
    store = HeldStore(path)
    request = RunRequest.configured(path, "translate", settings_for(model_server.base_url), RunDefaults())
    events = run_chapter(request, store=store)
    seen = []
    async for event in events:
        seen.append(event)
        if isinstance(event, ToolCalled):
            await asyncio.to_thread(store.entered.wait, 30)  # the commit is under way in its thread
            events.cancel()
            store.go_on.set()
    on_disk = selected_texts(path)
    assert all(on_disk[pid] == f"text {pid}" for pid in WORK[:3])  # the commit was finished
    (result,) = kinds(seen, "tool_result")
    assert result.success and result.result["accepted"] == WORK[:3]
    (committed,) = kinds(seen, "batch_committed")
    assert committed.paragraph_ids == tuple(WORK[:3])
    (chunk,) = kinds(seen, "chunk_finished")
    assert chunk.status == "cancelled" and set(chunk.missing) == set(WORK[3:])  # the report matches the file
    assert kinds(seen, "run_finished")[0].status == "cancelled"
