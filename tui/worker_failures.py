"""A failing worker never ends the app: it is reported once, as a notification and in the log file.

``Worker.StateChanged`` does not bubble: it reaches only the node that started the worker. Every node of ours that
starts workers (the app, screens, widgets) mixes in ``ReportsWorkerFailures``: through Textual's public
``run_worker`` (which ``@work`` calls too) no worker of it ends the app on a failure, and its
``on_worker_state_changed`` sends the app one ``WorkerFailedReported``, so the App's one handler hears of every
failed worker. ``tests/tui/test_robust.py`` checks that every class of ours that starts a worker mixes it in.
"""

from __future__ import annotations

from textual.dom import DOMNode
from textual.message import Message
from textual.worker import ResultType, Worker, WorkerState, WorkType

from tui.terminal_text import visible

MAX_ERROR_CHARS = 300  # of the exception's text in the notification; the log file has all of it


def what_failed(worker: Worker[object]) -> str:
    """The worker's task in a few words: its description when someone wrote one, else its function's name."""
    description = worker.description.strip()
    name = worker.name.strip()
    # Textual's default descriptions are a repr (``<coroutine object ...>``) or a call (``name(args)``).
    if description and not description.startswith("<") and not (name and description.startswith(f"{name}(")):
        return description
    words = name.strip("_").replace("_", " ").strip()
    return words or worker.group or "a background task"


def failure_sentence(worker: Worker[object]) -> str:
    """One sentence naming what failed and why, with control characters escaped (shown with markup off)."""
    error = worker.error
    kind = type(error).__name__ if error is not None else "an unknown error"
    detail = str(error).strip() if error is not None else ""
    if len(detail) > MAX_ERROR_CHARS:
        detail = detail[:MAX_ERROR_CHARS] + "…"
    reason = f"{kind}: {detail}" if detail else kind
    return visible(
        f"Background task “{what_failed(worker)}” failed: {reason} (details in the log file).", newlines=False
    )


class WorkerFailedReported(Message):
    """A worker of some node failed (posted to the app, whose handler reports it)."""

    def __init__(self, worker: Worker[object]) -> None:
        super().__init__()
        self.worker = worker


class ReportsWorkerFailures(DOMNode):
    """Mixed into every app, screen and widget class of ours that starts workers, AFTER the Textual base: Textual
    inherits default CSS along the first base only, so a mixin first would cost the widget its base's styles."""

    def run_worker(
        self,
        work: WorkType[ResultType],
        name: str | None = "",
        group: str = "default",
        description: str = "",
        exit_on_error: bool = True,
        start: bool = True,
        exclusive: bool = False,
        thread: bool = False,
    ) -> Worker[ResultType]:
        """Textual's ``run_worker``, except that a failure never ends the app (it is reported instead)."""
        del exit_on_error  # also for a worker started without exit_on_error=False
        return super().run_worker(
            work,
            name=name,
            group=group,
            description=description,
            exit_on_error=False,
            start=start,
            exclusive=exclusive,
            thread=thread,
        )

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.state is WorkerState.ERROR:
            self.app.post_message(WorkerFailedReported(event.worker))
