"""One MCP session's trace: ``<workspace>/.proofdesk/traces/mcp/<UTC time>-mcp.jsonl``.

``session_started`` (the client), then per call ``tool_called`` and ``tool_result`` (``turn`` numbers the calls,
``chunk`` is the open chunk's index) with ``batch_committed`` after a commit and ``chunk_started`` after a
``get_chunk`` that opened one, and ``session_finished``; the
inspector (``proofdesk trace``) replays it like a run's. A trace that cannot be written stops tracing, never the
session (``failed`` says why).
"""

from __future__ import annotations

import logging
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from engine.events import (
    BatchCommitted,
    ChunkStarted,
    EngineEvent,
    SessionFinished,
    SessionStarted,
    ToolCalled,
    ToolResult,
)
from engine.scope import ChunkScope
from engine.tools.results import Committed
from engine.trace import TraceWriter, default_trace_path
from store.errors import StoreError
from store.workspace import Workspace

log = logging.getLogger(__name__)

TRACE_FOLDER = "mcp"


class SessionTrace:
    """Writes a session's events; opened by :meth:`start`, closed by :meth:`finish`."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        self.session_id = uuid.uuid4().hex[:12]
        self.path: Path = default_trace_path(workspace.traces_dir, TRACE_FOLDER, "mcp")
        self.calls = 0
        self.errors: Counter[str] = Counter()
        self.failed: str | None = None
        self._writer: TraceWriter | None = None

    @property
    def started(self) -> bool:
        """Whether ``session_started`` was written (or tried)."""
        return self._writer is not None or self.failed is not None

    def start(self, client: str, version: str | None) -> None:
        """Open the file and write ``session_started``."""
        try:
            self._writer = TraceWriter(self.path)
        except (StoreError, OSError) as exc:
            self.failed = f"the trace {self.path} cannot be written ({exc}); this session is not traced"
            log.warning("%s", self.failed)
            return
        where = str(self.workspace.root)
        self._write(SessionStarted(run_id=self.session_id, client=client, client_version=version, workspace=where))

    def called(self, name: str, arguments: Any, chunk: int | None) -> str:
        """Write ``tool_called``; returns the call's id."""
        self.calls += 1
        call_id = f"mcp-{self.calls}"
        self._write(
            ToolCalled(
                run_id=self.session_id, chunk=chunk, turn=self.calls, call_id=call_id, name=name, arguments=arguments
            )
        )
        return call_id

    def answered(self, call_id: str, name: str, result: dict[str, Any], chunk: int | None) -> None:
        """Write ``tool_result`` (counting its error code)."""
        success = result.get("success") is True
        code = None if success else str(result.get("error_code") or "ERROR")
        if code is not None:
            self.errors[code] += 1
        self._write(
            ToolResult(
                run_id=self.session_id,
                chunk=chunk,
                turn=self.calls,
                call_id=call_id,
                name=name,
                success=success,
                error_code=code,
                result=result,
            )
        )

    def opened(self, scope: ChunkScope, index: int, count: int) -> None:
        """Write ``chunk_started`` for the chunk ``get_chunk`` opened (the inspector shows its boundaries beside
        the calls that follow)."""
        if scope.boundaries is None:
            return
        bounds = scope.boundaries
        self._write(
            ChunkStarted(
                run_id=self.session_id,
                chunk=index,
                paragraph_ids=bounds.order,
                first_paragraph_id=bounds.first_paragraph_id,
                last_paragraph_id=bounds.last_paragraph_id,
                chunk_count=count,
            )
        )

    def committed(self, committed: Committed, file: Path | None, chunk: int | None) -> None:
        """Write ``batch_committed`` for a call that wrote to a chapter file."""
        self._write(
            BatchCommitted(
                run_id=self.session_id,
                chunk=chunk,
                paragraph_ids=committed.accepted,
                file=str(file or ""),
                unchanged=committed.unchanged,
                kept_selection=committed.kept_selection,
                suggested=committed.suggested,
                protected=committed.protected,
            )
        )

    def finish(self) -> None:
        """Write ``session_finished`` and close the file."""
        self._write(SessionFinished(run_id=self.session_id, tool_calls=self.calls, tool_errors=dict(self.errors)))
        if self._writer is not None:
            self._writer.close()
            self.failed = self.failed or self._writer.failed

    def _write(self, event: EngineEvent) -> None:
        if self._writer is not None:
            self._writer.write(event)
