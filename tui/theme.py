"""The proofdesk colour theme; styles themselves live in ``themes/*.tcss`` and use only theme variables."""

from __future__ import annotations

from textual.theme import Theme

PROOFDESK_THEME = Theme(
    name="proofdesk",
    primary="#5FA8D3",
    secondary="#A78BFA",
    accent="#E9B872",
    warning="#E9B872",
    error="#F26D6D",
    success="#7BC47F",
    foreground="#D8DEE9",
    background="#1B1F27",
    surface="#232833",
    panel="#2C3340",
    dark=True,
)
