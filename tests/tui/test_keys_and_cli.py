"""Keys are data: remappable by id from the config, all listed by help, all in the palette; and the CLI words
that start the workstation refuse bad input with one line and exit 2, before any UI."""

from __future__ import annotations

from pathlib import Path

import pytest

from store.loader import load_chapter
from tests.tui.conftest import SIZE, make_app, palette_offers, wait_for
from tui.app import ProofdeskApp
from tui.cli import main
from tui.controllers.checks import ChecksControl
from tui.controllers.runs import RunControl
from tui.keymap import binding_ids
from tui.screens.chapter import ChapterScreen
from tui.screens.help import HelpScreen
from tui.widgets.chapter_panes import ChapterPanes
from tui.widgets.paragraph_table import ParagraphTable


@pytest.fixture
def config_file(isolated_dirs: Path) -> Path:
    path = isolated_dirs / "config" / "proofdesk" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def test_every_binding_has_an_id() -> None:
    for cls in ProofdeskApp.binding_classes():
        for binding in cls.__dict__.get("BINDINGS", []):
            assert getattr(binding, "id", None), f"{cls.__name__}: {binding} has no id"
    ids = binding_ids(ProofdeskApp.binding_classes())
    assert {"chapter.translate", "chapter.cancel", "chapter.reviewed", "log.copy", "trace.next_error"} <= set(ids)


async def test_keymap_remaps_a_binding_by_id(review_path: Path, config_file: Path) -> None:
    config_file.write_text('[keymap]\n"chapter.reviewed" = "v"\n', encoding="utf-8")
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "m")
        await app.workers.wait_for_complete()  # a commit started by m would be one of them
        assert not load_chapter(review_path).paragraphs[1].reviewed  # m no longer marks
        await pilot.press("v")
        await wait_for(pilot, lambda: load_chapter(review_path).paragraphs[1].reviewed, what="v to mark reviewed")
        await pilot.press("question_mark")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        lines = help_screen.render_help().plain.splitlines()
        reviewed = [line for line in lines if "chapter.reviewed" in line]
        assert reviewed and reviewed[0].split()[0] == "v"


async def test_help_lists_every_key_of_the_screen(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        help_screen = app.screen
        assert isinstance(help_screen, HelpScreen)
        text = help_screen.render_help().plain
        wanted = binding_ids([ProofdeskApp, ChapterScreen, RunControl, ChecksControl, ChapterPanes, ParagraphTable])
        missing = [i for i in wanted if i not in text]
        assert not missing
        assert "changed by the last run" in text  # the row states legend
        await pilot.press("escape")
        assert isinstance(app.screen, ChapterScreen)


@pytest.mark.slow  # typing into the palette: a search per key
async def test_palette_runs_any_action_by_name(review_path: Path) -> None:
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("down", "ctrl+p")
        await pilot.press(*"Mark, next")
        await palette_offers(pilot, "Mark, next")
        await pilot.press("enter")
        await wait_for(pilot, lambda: load_chapter(review_path).paragraphs[1].reviewed, what="the palette action")
        await pilot.press("ctrl+p", *"Chunk separators: off")
        await palette_offers(pilot, "Chunk separators: off")
        await pilot.press("enter")
        await wait_for(
            pilot,
            lambda: isinstance(app.screen, ChapterScreen) and app.screen.separator_task is None,
            what="the separators to turn off",
        )


def test_open_refuses_a_missing_or_invalid_chapter(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(tmp_path / "missing.json")]) == 2
    assert "missing.json: no such file or folder" in capsys.readouterr().err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "proofdesk.chapter/1", "id": "x", "paragraphs": [}', encoding="utf-8")
    assert main(["open", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.json:1:" in err and "Traceback" not in err


def test_open_refuses_an_unknown_keymap_id(
    review_path: Path, config_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    config_file.write_text('[keymap]\n"chapter.no_such_thing" = "z"\n', encoding="utf-8")
    assert main([str(review_path)]) == 2
    err = capsys.readouterr().err
    assert "keymap.chapter.no_such_thing" in err and str(config_file) in err


def test_trace_refuses_a_broken_trace(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text('{"kind": "run_started"}\n{broken\n', encoding="utf-8")
    assert main(["trace", str(trace)]) == 2
    assert "t.jsonl:2:" in capsys.readouterr().err
    assert main(["trace", str(tmp_path / "none.jsonl")]) == 2


@pytest.mark.slow  # typing into the palette: a search per key
async def test_palette_switches_model_profile_and_theme(review_path: Path, config_file: Path) -> None:
    config_file.write_text('[profiles.local]\nmodel = "qwen3"\nbase_url = "http://127.0.0.1:9/v1"\n', encoding="utf-8")
    app = make_app(review_path, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        assert app.workspace is not None and app.workspace.settings.model == "demo"
        await pilot.press("ctrl+p", *"use profile local")
        await palette_offers(pilot, "use profile local")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.workspace.settings.model == "qwen3", what="the profile switch")
        assert app.workspace.settings.base_url == "http://127.0.0.1:9/v1"
        await pilot.press("ctrl+p", *"Theme")  # Textual's own theme picker
        await palette_offers(pilot, "Theme")
        await pilot.press("enter", *"ansi-light")
        await palette_offers(pilot, "ansi-light")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.theme == "ansi-light", what="the theme switch")
