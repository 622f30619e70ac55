"""``proofdesk demo``: the workstation on a fresh copy of a bundled sample chapter, with the offline demo model."""

from __future__ import annotations

import argparse
from datetime import UTC, datetime
from pathlib import Path

import platformdirs

from engine.config import resolve_model
from store.atomic import atomic_write
from tui.commands.model_flags import add_model_flags, model_settings
from tui.commands.open import DEMO_DELAY, launch
from tui.sample import SAMPLE, sample_bytes


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``demo`` subcommand."""
    p = subparsers.add_parser(
        "demo",
        help="the workstation on a bundled sample chapter with the offline demo model",
        description="Copy a bundled sample chapter (Akutagawa's Rashomon, Japanese, with empty paragraphs) into a "
        "fresh folder under the user data folder and open it with the offline demo model: press t to translate, "
        "? for every key. Model flags choose another model instead.",
    )
    add_model_flags(p)
    p.set_defaults(handler=run)


def demo_folder() -> Path:
    """A new folder for this demo: ``<user data>/proofdesk/demo/<UTC time>/``."""
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S.%fZ")
    folder = platformdirs.user_data_path("proofdesk") / "demo" / stamp
    folder.mkdir(parents=True, exist_ok=False)
    return folder


def copy_sample(folder: Path) -> Path:
    """Write the sample chapter into ``folder`` and return its path."""
    target = folder / SAMPLE
    atomic_write(target, sample_bytes(), expect=None)
    return target


def run(args: argparse.Namespace) -> int:
    """Open the demo."""
    config, settings = model_settings(args)
    if args.profile is None and args.model is None and args.base_url is None:
        settings = resolve_model(config, model="demo")
    return launch(copy_sample(demo_folder()), config, settings, demo_delay=DEMO_DELAY)
