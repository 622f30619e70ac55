"""A session call refused before any tool ran: the failure result it answers with."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """Raised inside the session's steps; ``result`` is the failure object the call returns."""

    def __init__(self, result: dict[str, Any]) -> None:
        super().__init__(result["error"])
        self.result = result
