"""The proofdesk Textual app: global keys, theme, configuration, and the workspace watcher.

Kept thin: screens do the work (``tui/screens``), ``tui/session.py`` holds the state and makes the commits.
"""

from __future__ import annotations

import asyncio
import gc
import logging
from collections.abc import Callable
from pathlib import Path
from typing import ClassVar

from textual import events, work
from textual.app import App
from textual.binding import Binding, BindingType
from textual.dom import DOMNode
from textual.message import Message
from textual.screen import Screen
from textual.theme import BUILTIN_THEMES, Theme

import themes
from engine.config import Config, ConfigError, resolve_model
from store.errors import ChapterLoadError
from store.watcher import ChapterWatcher
from tui.controllers.book import BookControl
from tui.keymap import binding_ids, check_keymap
from tui.messages import GlossaryChanged, GlossaryEdited, MemoryChanged, RunProgressed, WorkspaceChanged
from tui.palette import ActionsProvider
from tui.screens.chapter import ChapterScreen
from tui.screens.chapter_list import ChapterListScreen
from tui.screens.help import HelpScreen
from tui.screens.prompt import TextModal
from tui.session import ChapterSession, WorkspaceSession
from tui.terminal_text import visible
from tui.theme import PROOFDESK_THEME, save_theme, start_theme
from tui.worker_failures import ReportsWorkerFailures, WorkerFailedReported, failure_sentence

log = logging.getLogger(__name__)

THEMES_DIR = Path(themes.__file__).parent
KEPT_CHAPTER_VIEWS = 4  # idle chapter views kept (with their logs) besides the one shown and any running
# Seconds between looks at the workspace for the translation memory (a listing and a stat per file: 2,000 chapters
# every 2 s cost an idle workstation ~2.5 % of a core); a chapter the watcher reports changed is looked at at once.
MEMORY_POLL = 10.0
WATCH_DELAY = 0.3  # seconds after start-up before the workspace watcher's first scan
GLOSSARY_LOOK = 1.0  # seconds between two looks (a stat) at the glossary file


class ProofdeskApp(App[int], ReportsWorkerFailures):
    """The workstation. Start it on a workspace (chapter list), a chapter, or a trace file."""

    TITLE = "proofdesk"
    CSS_PATH: ClassVar = [THEMES_DIR / "proofdesk.tcss", THEMES_DIR / "focus.tcss"]
    COMMANDS: ClassVar = App.COMMANDS | {ActionsProvider}  # Textual's own commands (keys, theme, ...) and ours
    ENABLE_COMMAND_PALETTE = True
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("ctrl+q", "quit", "Quit", show=False, priority=True, id="app.quit"),
        Binding("ctrl+p", "command_palette", "Palette", show=False, priority=True, id="app.palette"),
        Binding("question_mark,f1", "help", "Help", id="app.help"),
    ]

    def __init__(
        self,
        workspace: WorkspaceSession | None,
        *,
        chapter: ChapterSession | None = None,
        trace: Path | None = None,
        config: Config | None = None,
        watch: bool = True,
        demo_delay: float = 0.0,
    ) -> None:
        super().__init__()
        self.workspace = workspace
        self.start_chapter = chapter
        self.start_trace = trace
        self.watches_files = watch and workspace is not None
        self.demo_delay = demo_delay
        self.seeding = self.watches_files
        # The installed chapter views by screen name, least recently opened first.
        self._chapter_views: dict[str, ChapterScreen] = {}
        self.register_theme(PROOFDESK_THEME)
        if config is None and workspace is not None:
            config = workspace.config
        self.config_theme = config.theme if config is not None else None
        self.theme = start_theme(self.config_theme, self.available_themes)
        if config is not None and config.keymap:
            self.set_keymap(config.keymap)

    # -- configuration ---------------------------------------------------------------------------------------

    @classmethod
    def binding_classes(cls) -> list[type[DOMNode]]:
        """Every class of ours that declares bindings (for keymap validation): the app and each screen or
        widget class defined under ``tui``, found by walking the subclasses, so a new screen's bindings are
        remappable without being listed anywhere."""
        import importlib
        import pkgutil

        from tui import screens, widgets

        for package in (screens, widgets):  # a screen is known once its module is imported
            for module in pkgutil.iter_modules(package.__path__):
                importlib.import_module(f"{package.__name__}.{module.name}")
        found: list[type[DOMNode]] = [cls]
        pending = list(DOMNode.__subclasses__())
        while pending:
            klass = pending.pop()
            pending.extend(klass.__subclasses__())
            if klass.__module__.startswith("tui.") and "BINDINGS" in klass.__dict__ and klass not in found:
                found.append(klass)
        return found

    @classmethod
    def check_config(cls, keymap: dict[str, str], theme: str | None) -> list[str]:
        """Problems with the ``[keymap]`` table and ``theme`` of the configuration."""
        problems = check_keymap(keymap, binding_ids(cls.binding_classes()))
        if theme is not None:
            known = set(BUILTIN_THEMES) | {PROOFDESK_THEME.name}
            if theme not in known:
                problems.append(f"theme: no theme named {theme!r} (known: {', '.join(sorted(known))})")
        return problems

    def profile_names(self) -> list[str]:
        """Model profiles of the configuration, plus the offline demo model."""
        if self.workspace is None:
            return []
        return [*sorted(self.workspace.config.profiles), "demo"]

    def use_profile(self, name: str) -> None:
        """Switch the model of the next runs to a configured profile (or ``demo``)."""
        if self.workspace is None:
            return
        try:
            if name == "demo":
                settings = resolve_model(self.workspace.config, model="demo")
            else:
                settings = resolve_model(self.workspace.config, profile=name)
        except ConfigError as exc:
            self.notify(visible(str(exc)), severity="error", timeout=8, markup=False)
            return
        self.workspace.settings = settings
        self.notify(visible(f"Model for the next runs: {settings.model} ({name})."), markup=False)
        if isinstance(self.screen, ChapterScreen):
            self.screen.refresh_view()

    # -- screens ---------------------------------------------------------------------------------------------

    def on_mount(self) -> None:
        # The chapter read before start-up (hundreds of thousands of objects at 10,000 paragraphs) and the modules
        # live as long as the app: out of the collector's generations, a full collection during a run does not
        # walk them again (such collections held keys up for 150-440 ms).
        gc.freeze()
        self.theme_changed_signal.subscribe(self, self._theme_chosen)
        if self.start_trace is not None:
            from tui.screens.trace import TraceScreen

            self.push_screen(TraceScreen(self.start_trace))
            return
        assert self.workspace is not None
        self.workspace.glossary.reload_requested = self.reload_glossary
        self.reload_glossary()
        self.reload_memory()
        self.set_interval(MEMORY_POLL, self._poll_memory)
        # Edits made outside (another program, a headless run): a stat a second; a change is read in the worker
        # and GlossaryChanged reaches every screen (the chapter views' warnings and entries, the glossary screen).
        self.set_interval(GLOSSARY_LOOK, self.workspace.glossary.look)
        self.push_screen(ChapterListScreen(self.workspace))
        if self.start_chapter is not None:
            self.open_chapter(self.start_chapter)
        if self.watches_files:
            # After the first frames: the watcher's first scan parses every chapter again (in a thread, but
            # holding the GIL), and the first paint should not wait for it. The scan's result is compared
            # with what we show, so an edit made in between is still caught.
            self.set_timer(WATCH_DELAY, self.watch_workspace)

    def open_chapter(self, session: ChapterSession) -> None:
        """Show a chapter's view on top of the chapter list.

        Chapter views are installed screens: leaving one keeps it (its run goes on, its log stays) and opening
        the chapter again shows the same view. At most ``KEPT_CHAPTER_VIEWS`` idle views are kept.
        """
        assert self.workspace is not None
        name = f"chapter:{session.path}"
        view = self._chapter_views.pop(name, None)
        if view is None:
            view = ChapterScreen(self.workspace, session)
            self.install_screen(view, name)
        self._chapter_views[name] = view
        self.push_screen(name)
        self._drop_idle_views()

    def _drop_idle_views(self) -> None:
        """Forget the least recently opened chapter views beyond the limit, never one shown or running."""
        idle = [
            name
            for name, view in self._chapter_views.items()
            if view not in self.screen_stack and not view.run_in_progress
        ]
        for name in idle[: max(len(idle) - KEPT_CHAPTER_VIEWS, 0)]:
            view = self._chapter_views.pop(name)
            self.uninstall_screen(name)
            self.call_later(view.remove)

    def book_control(self) -> BookControl | None:
        """The book-level work of the workspace (it lives on the chapter list, always under the other screens)."""
        for screen in self.screen_stack:
            if isinstance(screen, ChapterListScreen):
                return screen.book
        return None

    def running_paths(self) -> frozenset[Path]:
        """The chapters a run goes on in: those of the chapter views' runs and of the book run."""
        paths = {view.session.path for view in self._chapter_views.values() if view.run_in_progress}
        book = self.book_control()
        if book is not None and book.current is not None:
            paths.add(book.current)
        return frozenset(paths)

    def on_run_progressed(self, message: RunProgressed) -> None:
        """A run moved on: the chapter list recounts, the view of that chapter redraws."""
        self._tell_screens(lambda: RunProgressed(message.path))

    def show_chapter_list(self) -> None:
        """Go back to the chapter list."""
        while len(self.screen_stack) > 2 and not isinstance(self.screen, ChapterListScreen):
            self.pop_screen()

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        self.push_screen(HelpScreen(self.screen))

    async def on_event(self, event: events.Event) -> None:
        # While a text modal is shown, it sees every key before the bindings do: one typed before it opened went to
        # the screen beneath and comes back here unused, one typed after it closed is for the screen beneath
        # (see TextModal).
        stack = self.screen_stack
        if isinstance(event, events.Key) and stack and isinstance(stack[-1], TextModal) and stack[-1].holds(event):
            return
        await super().on_event(event)

    # -- failures, theme -------------------------------------------------------------------------------------

    def on_worker_failed_reported(self, event: WorkerFailedReported) -> None:
        """The one handler of failed workers, of every node (tui.worker_failures sends them here): the traceback
        to the log file, one sentence on screen; the app goes on. A cancelled worker has not failed."""
        worker = event.worker
        log.error(
            "worker %r (group %r, node %s) failed",
            worker.name,
            worker.group,
            type(worker.node).__name__,
            exc_info=worker.error,
        )
        self.notify(failure_sentence(worker), severity="error", timeout=10, markup=False)

    def _theme_chosen(self, theme: Theme) -> None:
        self._save_theme(theme.name, self.config_theme)

    @work(thread=True, exclusive=True, group="theme", description="save the chosen theme", exit_on_error=False)
    def _save_theme(self, name: str, config_theme: str | None) -> None:
        save_theme(name, config_theme)

    # -- the glossary ----------------------------------------------------------------------------------------

    @work(thread=True, group="glossary", description="read the glossary", exit_on_error=False)
    def reload_glossary(self) -> None:
        """Read, parse and index the workspace glossary off the event loop, then tell the screens."""
        assert self.workspace is not None
        view = self.workspace.glossary
        before = (view.snapshot, view.problem)
        if view.reload() is not before[0] or view.problem != before[1]:
            self.call_from_thread(self._tell_screens, GlossaryChanged)

    def _poll_memory(self) -> None:
        if not any(w.group == "memory" and not w.is_finished for w in self.workers):
            self.reload_memory()

    @work(thread=True, group="memory", description="read the translation memory", exit_on_error=False)
    def reload_memory(self) -> None:
        """Look at the workspace's chapters and TMX files off the event loop; tell the screens when the memory
        changed (a review, a new TMX file)."""
        assert self.workspace is not None
        view = self.workspace.memory
        before = view.snapshot
        if view.reload(self.workspace.held_chapters()) is not before:
            self.call_from_thread(self._tell_screens, MemoryChanged)

    def on_glossary_edited(self, message: GlossaryEdited) -> None:
        """An edit made here was adopted without a reload: the views redraw, the checks see the new terms."""
        message.stop()
        self._tell_screens(GlossaryChanged)

    def _tell_screens(self, message: Callable[[], Message]) -> None:
        for screen in self._all_screens():
            screen.post_message(message())

    def _all_screens(self) -> list[Screen[object]]:
        """Every screen on the stack, and the chapter views kept off it (their logs go on)."""
        off_stack = [view for view in self._chapter_views.values() if view not in self.screen_stack]
        return [*self.screen_stack, *off_stack]

    # -- the watcher -----------------------------------------------------------------------------------------

    def broadcast(self, message: WorkspaceChanged) -> None:
        """Tell every screen on the stack, and the chapter views kept off it (their logs go on); a chapter changed
        on disk may change the translation memory too."""
        self._tell_screens(lambda: WorkspaceChanged(message.path, message.notice, error=message.error))
        if message.path is not None:
            self._poll_memory()

    @work(group="watcher", exit_on_error=False)
    async def watch_workspace(self) -> None:
        """Keep the sessions in step with the files while the app is open (see store.watcher)."""
        assert self.workspace is not None
        ws = self.workspace
        watcher = ChapterWatcher(ws.workspace)
        try:
            # Seeded from what the sessions already read: their files are not parsed a second time, and an
            # unchanged file comes back as the session's own chapter object (no copy, no comparison here).
            known = await asyncio.to_thread(ws.known_states)
            seeded = await watcher.seed(known)
            for path, state in seeded.items():
                session = ws.session(path)
                if isinstance(state, ChapterLoadError):
                    session.mark_invalid(state)
                    if session.chapter is not None:
                        self.broadcast(
                            WorkspaceChanged(path, f"{path.name} is not valid on disk: {state.line}", error=True)
                        )
                elif session.chapter is None:
                    session.adopt(state, external=False)
                elif state is not session.chapter:
                    # Changed between our first read and the watcher's: the watcher's bytes are the newer.
                    session.adopt(state, external=True)
                    self.broadcast(WorkspaceChanged(path, f"{path.name} changed on disk; reloaded"))
            self.seeding = False
            for session in list(ws.sessions.values()):
                await self._refresh_conflicts(session)
            self.broadcast(WorkspaceChanged(None))
            async for event in watcher.events():
                session, notice = ws.apply(event)
                log.info("%s", notice)
                self.broadcast(WorkspaceChanged(event.path, notice, error=event.kind != "chapter_changed"))
        finally:
            self.seeding = False
            await watcher.stop()

    async def _refresh_conflicts(self, session: ChapterSession) -> None:
        try:
            await asyncio.to_thread(session.refresh_conflicts)
        except OSError as exc:
            log.warning("could not read the conflicts of %s: %s", session.path, exc)
