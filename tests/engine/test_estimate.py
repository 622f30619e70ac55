"""``run --estimate``: tokens by character class, and a run's requests, tokens and cost worked out offline."""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path

import pytest

from engine.checks.length_ratio import letters
from engine.config import ModelSettings
from engine.cost import Prices
from engine.estimate import MESSAGE_OVERHEAD, estimate_run
from engine.glossary.run_glossary import RunGlossary
from engine.run_request import RunRequest
from engine.services import TaskService
from engine.token_estimate import estimate_tokens
from store.glossary import GlossaryEntry
from store.glossary_commit import GlossaryStore, add_entry
from store.loader import load_chapter
from store.workspace import Workspace
from tests.engine.loop_support import collect
from tests.engine.test_cli_run import run_cli
from tests.support.model_server import ModelServer
from tui.sample import sample_bytes

DEMO = ModelSettings(model="demo", base_url="demo://offline")
PRICED = dataclasses.replace(DEMO, model="deepseek-chat", prices=Prices.of(0.27, 1.10, cached_input=0.07))


def sample(tmp_path: Path) -> Path:
    path = tmp_path / "rashomon.json"
    path.write_bytes(sample_bytes())
    return path


def test_tokens_by_character_class() -> None:
    assert estimate_tokens("") == 0
    assert estimate_tokens("   \n\t") == 0  # white space is folded into the next token
    assert estimate_tokens("下人") == 2  # 0.75 per CJK character, rounded
    assert estimate_tokens("雨" * 100) == 75
    assert estimate_tokens("a") == 1 and estimate_tokens("internationalisation") == 4  # 20 letters / 4.5
    assert estimate_tokens("1234567") == 3  # three digits a token
    assert estimate_tokens('{"a":1}') == 5  # 5 symbols at 0.6, a word, a digit
    longer = "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。"
    assert estimate_tokens(longer * 2) == pytest.approx(2 * estimate_tokens(longer), abs=1)


def test_the_estimate_is_built_from_the_run_s_own_first_requests(tmp_path: Path) -> None:
    path = sample(tmp_path)
    estimate = estimate_run(RunRequest(path, "translate", DEMO, target_language="en"))
    glossary = RunGlossary(GlossaryStore(Workspace(tmp_path)))
    configs = TaskService(load_chapter(path), "translate", target_language="en", glossary=glossary).loop_configs()
    assert [c["chunk"] for c in estimate["chunks"]] == [str(c.chunk_index) for c in configs]
    for row, config in zip(estimate["chunks"], configs, strict=True):
        tools = json.dumps(list(config.tools), ensure_ascii=False)
        assert (
            row["first_request_tokens"]
            == estimate_tokens(config.system_prompt)
            + estimate_tokens(tools)
            + estimate_tokens(config.user_message)
            + 2 * MESSAGE_OVERHEAD
        )
        assert row["paragraphs"] == len(config.paragraph_ids)
        assert row["requests"] == [1, 24]  # up to --max-turns
        low, high = row["input_tokens"]
        assert low == row["first_request_tokens"] < high
        assert 0 < row["output_tokens"][0] < row["output_tokens"][1]
        assert row["cost"] is None  # the demo model has no prices: no cost, never a guessed one
    total = estimate["total"]
    assert total["paragraphs"] == sum(len(c.paragraph_ids) for c in configs) and total["cost"] is None
    assert total["input_tokens"][0] == sum(r["first_request_tokens"] for r in estimate["chunks"])


def test_a_translation_s_output_follows_the_language_pair(tmp_path: Path) -> None:
    path = sample(tmp_path)
    (chunk, *_) = estimate_run(RunRequest(path, "translate", DEMO, target_language="en"))["chunks"]
    config = TaskService(load_chapter(path), "translate", target_language="en").loop_configs()[0]
    source = "".join(config.chunk.chapter.paragraph(pid).text for pid in config.paragraph_ids)  # type: ignore[union-attr]
    items = sum(
        estimate_tokens(json.dumps({"paragraph_id": pid, "translated_text": ""})) for pid in config.paragraph_ids
    )
    english = letters(source) * 2.2 / 4.5 + items  # ja→en: 2.2 letters per letter, 4.5 English letters a token
    assert chunk["output_tokens"] == [math.floor(english * 0.75), math.ceil(english * 1.5)]
    (to_chinese, *_) = estimate_run(RunRequest(path, "translate", DEMO, target_language="zh"))["chunks"]
    chinese = letters(source) * 0.75 * 0.75 + items  # ja→zh: 0.75 letters per letter, 0.75 tokens a character
    assert to_chinese["output_tokens"] == [math.floor(chinese * 0.75), math.ceil(chinese * 1.5)]


def test_cost_range_under_the_profile_s_prices(tmp_path: Path) -> None:
    path = sample(tmp_path)
    estimate = estimate_run(RunRequest(path, "translate", PRICED, target_language="en"))
    assert estimate["currency"] == "USD"
    first, second = estimate["chunks"]
    for row in (first, second):
        low, high = row["cost"]
        assert 0 < low < high
    # the low end of chunk 1 is its first request and least output, at full price
    assert first["cost"][0] == round((first["input_tokens"][0] * 0.27 + first["output_tokens"][0] * 1.10) / 1e6, 6)
    # from chunk 2 on, the shared system prompt and tools may come from the provider's cache (cheaper)
    full = (second["input_tokens"][0] * 0.27 + second["output_tokens"][0] * 1.10) / 1e6
    assert second["cost"][0] < round(full, 6)
    assert estimate["total"]["cost"] == [
        round(first["cost"][0] + second["cost"][0], 6),
        round(first["cost"][1] + second["cost"][1], 6),
    ]


async def test_polish_estimates_from_the_translations(tmp_path: Path) -> None:
    path = sample(tmp_path)
    nothing = estimate_run(RunRequest(path, "polish", DEMO))
    assert nothing["chunks"] == [] and nothing["total"]["paragraphs"] == 0  # no translation yet: no work
    await collect(RunRequest(path, "translate", DEMO, target_language="en"))  # the offline demo model translates
    polish = estimate_run(RunRequest(path, "polish", DEMO))
    translations = sum(estimate_tokens(p.selected_text or "") for p in load_chapter(path).paragraphs)
    low, high = polish["total"]["output_tokens"]
    assert low < translations < high  # from mostly `unchanged` to a rewrite of every translation


@pytest.mark.slow
def test_cli_estimate_sends_nothing(tmp_path: Path, model_server: ModelServer, isolated_dirs: Path) -> None:
    config = isolated_dirs / "config" / "proofdesk" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'default_profile = "ds"\n[profiles.ds]\nmodel = "deepseek-chat"\nbase_url = '
        f'"{model_server.base_url}"\nprice_input = 0.27\nprice_cached_input = 0.07\n'
        "price_output = 1.10\n"
    )
    path = sample(tmp_path)
    before = path.read_bytes()
    done = run_cli("run", path.name, "--task", "translate", "--estimate", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "an estimate, no request sent" in done.stdout and "total (2 chunks): 39 paragraphs" in done.stdout
    assert "$0.00" in done.stdout and "method: tokens estimated from character classes" in done.stdout
    as_json = run_cli("run", path.name, "--task", "translate", "--estimate", "--json", cwd=tmp_path)
    data = json.loads(as_json.stdout)
    assert data["total"]["chunks"] == 2 and len(data["total"]["cost"]) == 2
    demo = run_cli("run", path.name, "--task", "translate", "--estimate", "--model", "demo", cwd=tmp_path)
    assert demo.returncode == 0 and "no prices for this model" in demo.stdout
    assert model_server.requests == [] and path.read_bytes() == before
    assert not (tmp_path / ".proofdesk").exists()  # no lock, no trace
    missing = run_cli("run", "nothere.json", "--task", "translate", "--estimate", cwd=tmp_path)
    assert missing.returncode == 2 and missing.stderr.strip() == "proofdesk: nothere.json: no such file"


def test_the_glossary_lines_are_in_the_estimated_requests(tmp_path: Path) -> None:
    path = sample(tmp_path)
    before = estimate_run(RunRequest(path, "translate", DEMO, target_language="en"))["chunks"][0]
    GlossaryStore(Workspace(tmp_path)).change(add_entry(GlossaryEntry(id="e", source="下人", target="the servant")))
    after = estimate_run(RunRequest(path, "translate", DEMO, target_language="en"))["chunks"][0]
    line = estimate_tokens("\n\nGlossary\n下人 → the servant (term)\n")
    assert after["first_request_tokens"] - before["first_request_tokens"] in range(line - 2, line + 3)


def test_the_estimate_counts_the_context_and_memory_lines(tmp_path: Path) -> None:
    from engine.chunk_context import ContextSettings
    from store.model import append_version
    from store.serialize import chapter_bytes

    path = sample(tmp_path)
    chapter = load_chapter(path)
    # Translate the first half and mark it reviewed: clean context for the second half, and memory entries.
    half = len(chapter.paragraphs) // 2
    done = {
        pos: append_version(p, f"English {p.id}.", origin="translation", model="m")[0].replace(reviewed=True)
        for pos, p in enumerate(chapter.paragraphs[:half])
        if not p.is_empty
    }
    path.write_bytes(chapter_bytes(chapter.with_paragraphs(done)))
    # Another chapter of the workspace holds the same text, reviewed: the memory has an exact match for every paragraph.
    every = {
        pos: append_version(p, f"Earlier {p.id}.", origin="translation", model="m")[0].replace(reviewed=True)
        for pos, p in enumerate(chapter.paragraphs)
        if not p.is_empty
    }
    (tmp_path / "other.json").write_bytes(chapter_bytes(chapter.with_paragraphs(every).replace(id="other")))

    def tokens(**options: object) -> int:
        request = dataclasses.replace(RunRequest(path, "translate", DEMO), **options)  # type: ignore[arg-type]
        return estimate_run(request)["total"]["input_tokens"][0]  # type: ignore[no-any-return]

    off = tokens(context=ContextSettings(0, 0), memory_max=0)
    with_context = tokens(memory_max=0)
    with_both = tokens()
    assert off < with_context < with_both
