"""What the tool-call loop needs from a model: the HTTP client and the demo model both provide it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any, Protocol

from engine.client.events import StreamEvent


class ChatModel(Protocol):
    """What the loop needs from a model: the HTTP client and the demo model both provide it."""

    def stream(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        """Stream one response to ``messages``."""
        ...

    async def aclose(self) -> None:
        """Release connections (the run calls it once, at its end)."""
        ...
