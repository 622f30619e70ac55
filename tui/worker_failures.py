"""A failing worker never ends the app: it is reported once, as a notification and in the log file.

``Worker.StateChanged`` does not bubble: it reaches only the node that started the worker, so the App's
``on_worker_state_changed`` alone would hear of the app's own workers only. ``ReportingWorkerManager`` (the app's
worker manager) is where every worker of every screen and widget passes: it turns off ending the app on a failure
for each of them (also for a worker started without ``exit_on_error=False``) and, once a worker of another node has
failed, sends the app that worker's ``StateChanged(ERROR)`` too, so the App's one handler sees every failure.
"""

from __future__ import annotations

from textual.app import App
from textual.worker import Worker, WorkerState
from textual.worker_manager import WorkerManager

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


class ReportingWorkerManager(WorkerManager):
    """The app's worker manager: no worker ends the app, and the app hears of every failed one."""

    def __init__(self, app: App[object]) -> None:
        super().__init__(app)
        self._app_node = app

    def add_worker(self, worker: Worker[object], start: bool = True, exclusive: bool = True) -> None:
        worker.exit_on_error = False
        super().add_worker(worker, start=start, exclusive=exclusive)

    def _remove_worker(self, worker: Worker[object]) -> None:
        # Textual calls this when a worker's task is done (its done-callback), whatever the worker's node.
        super()._remove_worker(worker)
        if worker.state is WorkerState.ERROR and worker.node is not self._app_node:
            self._app_node.post_message(Worker.StateChanged(worker, WorkerState.ERROR))
