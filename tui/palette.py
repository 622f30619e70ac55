"""The command palette (ctrl+p): every action of the screen in use, found by name, plus a few commands
that have no key (switch the model profile, the chunk separators, the theme)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider

from engine.chunks import TASKS
from tui.keymap import live_bindings

if TYPE_CHECKING:
    from tui.app import ProofdeskApp

Command = Callable[[], Awaitable[None] | None]


class ActionsProvider(Provider):
    """Bindings of the screen, its widgets and the app, plus the keyless commands."""

    def _commands(self) -> list[tuple[str, str, Command]]:
        app: ProofdeskApp = self.app  # type: ignore[assignment]
        found: list[tuple[str, str, Command]] = []
        seen: set[str] = set()
        for info in live_bindings(app, self.screen):
            if info.action == "command_palette":
                continue
            name = f"{info.description}"
            if name in seen:
                name = f"{info.description} ({info.group})"
            seen.add(name)
            found.append((name, f"{info.group} · key {info.keys}",
                          partial(app.run_action, info.action, info.node)))
        for profile in app.profile_names():
            found.append((f"Model: use profile {profile}", "switch the model for the next runs",
                          partial(app.use_profile, profile)))
        for theme in sorted(app.available_themes):
            found.append((f"Theme: {theme}", "colours of the whole app (config: theme = ...)",
                          partial(setattr, app, "theme", theme)))
        separators = getattr(self.screen, "set_separators", None)
        if separators is not None:
            for task in (*TASKS, None):
                label = f"Chunk separators: {task}" if task else "Chunk separators: off"
                found.append((label, "show where the chunks of this task start", partial(separators, task)))
        return found

    async def discover(self) -> Hits:
        for name, help_text, command in self._commands():
            yield DiscoveryHit(name, command, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, command in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, matcher.highlight(name), command, help=help_text)
