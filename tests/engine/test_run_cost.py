"""Tokens, cache hits and cost of a run: per chunk, per run, in the trace, on a cancelled run, and in the CLI."""

from __future__ import annotations

import asyncio
import dataclasses
import json
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

from engine.config import ConfigError, load_config, resolve_model
from engine.cost import Prices, cache_share, cost_of
from engine.run import run_chapter
from engine.run_request import RunRequest
from tests.engine.loop_support import IDS, collect, kinds, settings_for, write_chapter
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import SSE_HEADERS, ModelServer, Scripted, chunk, sse, text_chunks, tool_chunks

A1, A2, A3, A4, A5, A6, A7, A8 = IDS
# GPT-4o's published prices, per million tokens.
PRICES = Prices.of(2.50, 10.00, cached_input=1.25)


def _with_usage(chunks: list[dict[str, Any]], prompt: int, completion: int, cached: int | None = None) -> Scripted:
    usage: dict[str, Any] = {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
    }
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return Scripted(200, dict(SSE_HEADERS), sse([*chunks, chunk(choices=False, usage=usage)]))


def batch(*pids: str) -> dict[str, Any]:
    return {"paragraphs": [{"paragraph_id": pid, "translated_text": f"text of {pid}"} for pid in pids]}


def whole_chapter_script(server: ModelServer) -> None:
    """One chunk in two turns: a batch of half the paragraphs (800,000 prompt tokens, none cached), then the rest
    (950,000, of which the provider's cache served 760,000: the history's prefix)."""
    server.add(
        _with_usage(tool_chunks([("add_translation_batch", batch(A1, A3, A4))], usage=None), 800_000, 120_000, 0),
        _with_usage(tool_chunks([("add_translation_batch", batch(A6, A7, A8))], usage=None), 950_000, 3_000, 760_000),
    )


def test_cost_is_exact_in_decimal_and_cached_tokens_are_cheaper() -> None:
    usage = {
        "prompt_tokens": 1_750_000,
        "completion_tokens": 123_000,
        "total_tokens": 1_873_000,
        "cached_tokens": 760_000,
    }
    cost = cost_of(usage, PRICES)
    # 990,000 uncached x 2.50 + 760,000 cached x 1.25 + 123,000 out x 10.00, per million
    assert cost == {"currency": "USD", "input": 2.475, "cached_input": 0.95, "output": 1.23, "total": 4.655}
    assert cost_of(usage, None) is None  # no prices, no cost: never a guessed one
    no_cache_price = Prices.of(2.50, 10.00)
    assert cost_of(usage, no_cache_price)["total"] == 5.605  # type: ignore[index]  # cached billed as input
    assert cache_share(usage) == pytest.approx(760_000 / 1_750_000)
    assert cache_share({"prompt_tokens": 10, "completion_tokens": 1, "total_tokens": 11}) is None
    tiny = cost_of({"prompt_tokens": 1, "completion_tokens": 0}, Prices.of(0.07, 1.10))
    assert tiny["total"] == 0.0 and Decimal("0.07") / 1_000_000 < Decimal("0.000001")  # type: ignore[index]


def test_prices_come_from_the_profile_and_half_a_price_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text(
        '[profiles.ds]\nmodel = "deepseek-chat"\nprice_input = 0.27\nprice_cached_input = 0.07\n'
        'price_output = 1.10\ncurrency = "usd"\n'
    )
    prices = load_config(path).profiles["ds"].prices
    assert prices == Prices(Decimal("0.27"), Decimal("1.1"), Decimal("0.07"), "USD")
    path.write_text('[profiles.ds]\nmodel = "deepseek-chat"\nprice_output = 1.10\n')
    with pytest.raises(ConfigError, match=r"config.toml: profiles.ds: set both price_input and price_output"):
        load_config(path)
    path.write_text('[profiles.ds]\nmodel = "m"\nprice_input = -1\nprice_output = 1\n')
    with pytest.raises(ConfigError, match=r"profiles.ds.price_input"):
        load_config(path)


async def test_a_run_adds_up_tokens_and_cost_per_chunk_and_per_run(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    whole_chapter_script(model_server)
    settings = dataclasses.replace(settings_for(model_server.base_url), prices=PRICES)
    events = await collect(RunRequest(path, "translate", settings, chunk_chars=50_000))
    started = kinds(events, "run_started")[0]
    assert started.prices == {"input": 2.5, "cached_input": 1.25, "output": 10.0, "currency": "USD"}
    (chunk_done,) = kinds(events, "chunk_finished")
    expected_usage = {
        "prompt_tokens": 1_750_000,
        "completion_tokens": 123_000,
        "total_tokens": 1_873_000,
        "cached_tokens": 760_000,
    }
    assert chunk_done.usage == expected_usage
    assert chunk_done.cost["total"] == 4.655
    summary = events[-1].summary
    assert summary.usage == expected_usage
    assert summary.cost == {"currency": "USD", "input": 2.475, "cached_input": 0.95, "output": 1.23, "total": 4.655}
    assert summary.chunks[0].cost["total"] == 4.655
    # the trace records the same (it is what `proofdesk trace` and the inspector read back)
    trace = [json.loads(line) for line in Path(summary.trace).read_text().splitlines()]
    assert trace[-1]["summary"]["cost"]["total"] == 4.655
    assert [r["cost"]["total"] for r in trace if r["kind"] == "chunk_finished"] == [4.655]


async def test_without_prices_there_is_no_cost(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    whole_chapter_script(model_server)
    events = await collect(RunRequest(path, "translate", settings_for(model_server.base_url), chunk_chars=50_000))
    assert events[-1].summary.cost is None and kinds(events, "chunk_finished")[0].cost is None
    assert events[-1].summary.usage["cached_tokens"] == 760_000


async def test_a_cancelled_run_reports_its_partial_cost(tmp_path: Path, model_server: ModelServer) -> None:
    path = write_chapter(tmp_path)
    first = _with_usage(tool_chunks([("add_translation_batch", batch(A1, A3))], usage=None), 400_000, 20_000, 0)
    hanging = _with_usage(text_chunks("still thinking", usage=None), 1, 1)
    model_server.add(first, Scripted(hanging.status, hanging.headers, hanging.body, hang_after=40))
    settings = dataclasses.replace(settings_for(model_server.base_url), prices=PRICES)
    events = []
    stream = run_chapter(RunRequest(path, "translate", settings, chunk_chars=50_000))
    async for event in stream:
        events.append(event)
        if event.kind == "batch_committed":
            while len(model_server.requests) < 2:  # the second request is on the wire, its answer hangs
                await asyncio.sleep(0.01)
            stream.cancel()
    finished = events[-1]
    assert finished.kind == "run_finished" and finished.status == "cancelled"
    # the first response's tokens were billed: 400,000 in x 2.50 + 20,000 out x 10.00 = 1.20
    assert finished.summary.usage["prompt_tokens"] == 400_000
    assert finished.summary.cost["total"] == 1.2


@pytest.mark.slow
def test_cli_summary_and_json_show_tokens_cache_share_and_cost(
    tmp_path: Path, model_server: ModelServer, isolated_dirs: Path
) -> None:
    config = Path(str(isolated_dirs / "config" / "proofdesk" / "config.toml"))
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'default_profile = "gpt"\n[profiles.gpt]\nmodel = "gpt-4o"\nbase_url = '
        f'"{model_server.base_url}"\nprice_input = 2.50\nprice_cached_input = 1.25\n'
        "price_output = 10.00\n"
    )
    path = write_chapter(tmp_path)
    whole_chapter_script(model_server)
    done = run_cli("run", path.name, "--task", "translate", "--chunk-chars", "50000", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "1,873,000 tokens: 1,750,000 in (43% cached), 123,000 out · $4.66" in done.stderr
    finished = json.loads(done.stdout.splitlines()[-1])
    assert finished["summary"]["cost"]["total"] == 4.655
    chunk_line = next(json.loads(x) for x in done.stdout.splitlines() if '"chunk_finished"' in x)
    assert chunk_line["cost"]["total"] == 4.655 and chunk_line["usage"]["cached_tokens"] == 760_000


def test_a_profile_s_prices_are_for_its_model_only(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[profiles.ds]\nmodel = "deepseek-chat"\nprice_input = 0.27\nprice_output = 1.10\n')
    config = load_config(path)
    assert resolve_model(config, profile="ds", environ={}).prices == Prices.of(0.27, 1.10)
    assert resolve_model(config, profile="ds", model="deepseek-chat", environ={}).prices is not None
    assert resolve_model(config, profile="ds", model="deepseek-reasoner", environ={}).prices is None
    assert resolve_model(config, profile="ds", model="demo", environ={}).prices is None
