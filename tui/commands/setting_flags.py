"""Command-line flags of the run settings, parsed through ``engine.settings`` so that every command refuses a
bad value in the same sentence as the config file does (argparse adds ``argument --flag:`` and exits 2)."""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import Any

from engine.settings import Setting, SettingError


def setting_type(setting: Setting) -> Callable[[str], Any]:
    """The argparse ``type`` of ``setting``'s flag."""

    def parse(text: str) -> Any:
        try:
            return setting.parse(text)
        except SettingError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None

    parse.__name__ = setting.key  # argparse names the type in some messages
    return parse


def add_setting_flag(
    parser: argparse.ArgumentParser | Any, setting: Setting, help_text: str, *, metavar: str = "N"
) -> None:
    """Add ``setting``'s flag; its default is None, so the config file's value applies when it is left out."""
    if setting.flag is None:
        raise ValueError(f"{setting.key} has no flag")
    parser.add_argument(
        setting.flag,
        type=setting_type(setting),
        metavar=metavar,
        help=f"{help_text} ({setting.describe()}; default: the config file's, else {setting.default:g})",
    )  # defaults are small: :g never turns them into 1e+06
