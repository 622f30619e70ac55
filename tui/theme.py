"""The proofdesk colour theme, and the theme a person last chose (kept for the next start).

Styles themselves live in ``themes/*.tcss`` and use only theme variables. A theme is chosen with Textual's own
picker (the palette's "Theme" command); the choice is written to a small state file, never into the config file
(which is the person's own TOML). The config's ``theme`` wins once it differs from what it was when the choice was
made: whoever decided last is obeyed.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Collection
from pathlib import Path

import platformdirs
from textual.theme import Theme

log = logging.getLogger(__name__)

DEFAULT_THEME = "proofdesk"
STATE_NAME = "theme.json"

PROOFDESK_THEME = Theme(
    name="proofdesk",
    primary="#5FA8D3",
    secondary="#A78BFA",
    accent="#6CC4C9",  # teal: separators, focus and keys never look like a warning (amber)
    warning="#E9B872",
    error="#F26D6D",
    success="#7BC47F",
    foreground="#D8DEE9",
    background="#1B1F27",
    surface="#232833",
    panel="#2C3340",
    dark=True,
)


def theme_state_path() -> Path:
    """``<platform user state dir>/proofdesk/theme.json``: the theme last chosen in the app."""
    return platformdirs.user_state_path("proofdesk") / STATE_NAME


def start_theme(config_theme: str | None, known: Collection[str]) -> str:
    """The theme to start with: the one last chosen in the app, unless the config's ``theme`` changed since (or the
    choice is unreadable or names a theme that no longer exists); then the config's, else proofdesk's own."""
    fallback = config_theme or DEFAULT_THEME
    path = theme_state_path()
    try:
        saved = json.loads(path.read_bytes())
    except FileNotFoundError:
        return fallback
    except (OSError, ValueError) as exc:
        log.warning("ignoring the saved theme in %s: %s", path, exc)
        return fallback
    if not isinstance(saved, dict) or saved.get("config_theme") != config_theme:
        return fallback
    theme = saved.get("theme")
    return theme if isinstance(theme, str) and theme in known else fallback


def save_theme(theme: str, config_theme: str | None) -> None:
    """Keep ``theme`` for the next start (atomically: a crash leaves the old choice or the new one, whole), noting
    the config's ``theme`` it was chosen under. Raises ``OSError`` or ``store.atomic.CommitError``."""
    from store.atomic import atomic_write

    path = theme_state_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = json.dumps({"theme": theme, "config_theme": config_theme}, ensure_ascii=False) + "\n"
    atomic_write(path, data.encode("utf-8"), expect=None)
