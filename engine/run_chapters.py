"""Several chapters' runs, at most ``jobs`` at once, sharing one connection pool and each workspace's glossary and
memory sources (``engine.workspace_sources``); their events interleaved as they happen."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from engine.client.client import new_http_client
from engine.model_open import needs_tls
from engine.run import run_chapter
from engine.run_events import RunEvents
from engine.run_request import RunRequest
from engine.workspace_sources import WorkspaceSources
from store.workspace import Workspace


def run_chapters(requests: Sequence[RunRequest], *, jobs: int = 1) -> RunEvents:
    """Run several chapters, at most ``jobs`` at once, yielding all their events as they happen.

    ``cancel()`` stops the running chapters (each still reports ``run_finished``) and starts no more.
    """
    limit = asyncio.Semaphore(max(1, jobs))
    sources = WorkspaceSources()  # each workspace's glossary and memory, read once per change for every chapter
    remote = [r.settings for r in requests if not r.settings.is_demo]
    active: set[RunEvents] = set()
    state = {"cancelled": False}

    async def produce(emit: Callable[[Any], None]) -> None:
        # One pool for every chapter: connections are reused and the TLS set-up is paid once, not per chapter.
        http = None
        if remote:
            first = remote[0]
            http = new_http_client(
                tls=needs_tls(remote),
                connect_timeout=first.connect_timeout,
                read_timeout=max(s.read_timeout for s in remote),
                max_connections=max(64, jobs),
                keep_alive=max(16, jobs),
            )

        async def one(request: RunRequest) -> None:
            async with limit:
                if state["cancelled"]:
                    return
                # With others running, a chapter's set-up (reading files, building its chunks) waits in a thread:
                # on the loop it would hold back every other chapter's next request.
                workspace = Workspace.for_chapter(request.chapter_path)
                events = run_chapter(
                    request,
                    workspace=workspace,
                    http_client=http,
                    shares_loop=jobs > 1,
                    glossary=sources.glossary(workspace),
                    memory=sources.memory(workspace, request),
                )
                active.add(events)
                try:
                    async for event in events:
                        emit(event)
                finally:
                    active.discard(events)

        try:
            async with asyncio.TaskGroup() as group:
                for request in requests:
                    group.create_task(one(request))
        finally:
            if http is not None:
                await http.aclose()

    def cancel() -> None:
        state["cancelled"] = True
        for events in list(active):
            events.cancel()

    return RunEvents(produce, "proofdesk-runs", on_cancel=cancel)
