"""The OpenAI-compatible streaming model client: ``ModelClient.stream`` yields deltas and a ``Completed`` response."""

from engine.client.client import ModelClient
from engine.client.errors import (
    ModelConnectionError,
    ModelError,
    ModelHTTPError,
    ModelStreamError,
    ModelTimeoutError,
)
from engine.client.events import Completed, ReasoningDelta, RetryScheduled, StreamEvent, TextDelta, ToolCallProgress
from engine.client.response import AssembledResponse, ToolCall, Usage
from engine.client.retry import RetryPolicy

__all__ = [
    "AssembledResponse",
    "Completed",
    "ModelClient",
    "ModelConnectionError",
    "ModelError",
    "ModelHTTPError",
    "ModelStreamError",
    "ModelTimeoutError",
    "ReasoningDelta",
    "RetryPolicy",
    "RetryScheduled",
    "StreamEvent",
    "TextDelta",
    "ToolCall",
    "ToolCallProgress",
    "Usage",
]
