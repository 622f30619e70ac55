"""Copying to the clipboard, and saying honestly whether it arrived.

``App.copy_to_clipboard`` sends OSC 52, which reaches the local clipboard over SSH, but tmux drops it unless its
``set-clipboard`` option lets it through (``set -g set-clipboard on``; tmux's default, ``external``, passes only
what tmux itself copies). Under tmux (``TMUX`` in the environment) the toast says so and names the setting.
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from textual.widget import Widget

TMUX_SETTING = "set -g set-clipboard on"


def copied_message(what: str, environ: Mapping[str, str] | None = None) -> str:
    """What to tell the person after ``what`` ("the translation") was sent to the clipboard."""
    env = os.environ if environ is None else environ
    if env.get("TMUX"):
        return (
            f"Sent {what} to the clipboard (OSC 52); under tmux it may not have arrived: tmux passes it on only "
            f"with `{TMUX_SETTING}` in ~/.tmux.conf."
        )
    return f"Copied {what} (OSC 52)."


def copy_and_say(node: Widget, text: str, what: str) -> None:
    """Send ``text`` to the clipboard and say so in a toast (longer under tmux: there is a setting to read)."""
    node.app.copy_to_clipboard(text)
    message = copied_message(what)
    node.notify(message, timeout=8 if "tmux" in message else 2, markup=False)
