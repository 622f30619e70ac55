"""The model a run talks to: the offline demo model, or the HTTP client of its settings."""

from __future__ import annotations

from collections.abc import Sequence

import httpx

from engine.chat_model import ChatModel
from engine.client.client import ModelClient
from engine.client.limits import StreamLimits
from engine.config import ModelSettings
from engine.run_request import RunRequest


def open_model(request: RunRequest, target_language: str | None, http: httpx.AsyncClient | None) -> ChatModel:
    s = request.settings
    if s.is_demo:
        from engine.demo_model import DemoModel  # the offline model's phrase tables load only when it is used

        return DemoModel(task=request.task, target_language=target_language or "en", delay=request.demo_delay)
    return open_client(s, http)


def open_client(s: ModelSettings, http: httpx.AsyncClient | None = None) -> ModelClient:
    """The HTTP model client for ``s`` (its output limit, timeouts, headers and body)."""
    return ModelClient(
        s.base_url,
        s.model,
        api_key=s.api_key.reveal() if s.api_key else None,
        temperature=s.temperature,
        extra_headers=s.headers,
        extra_body=s.body,
        max_tokens=s.max_tokens,
        max_tokens_field=s.max_tokens_field,
        connect_timeout=s.connect_timeout,
        read_timeout=s.read_timeout,
        http_client=http,
        limits=StreamLimits.of(s.response_mb, s.response_seconds),
    )


def needs_tls(settings: Sequence[ModelSettings]) -> bool:
    """Whether a shared pool must load the CA bundle: unless every endpoint is plain http (compared after
    parsing, so ``HTTPS://`` is https too), certificates are verified."""
    return any(httpx.URL(s.base_url).scheme != "http" for s in settings)
