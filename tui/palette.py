"""Our commands in the command palette (ctrl+p), beside Textual's own (keys, theme, screenshot, maximize, quit):
every action bound to a key of ours on the screen in use, found by name, plus a few commands that have no key
(switch the model profile, the chunk separators, the book's work: run, check, export)."""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from textual.command import DiscoveryHit, Hit, Hits, Provider
from textual.content import Content
from textual.fuzzy import Matcher

from engine.chunks import TASKS
from tui.keymap import live_bindings

if TYPE_CHECKING:
    from tui.app import ProofdeskApp

Command = Callable[[], object]  # what the palette calls; a coroutine it returns is awaited

# Actions Textual's own commands offer already.
SYSTEM_ACTIONS = frozenset({"command_palette", "quit"})


class ActionsProvider(Provider):
    """Our bindings of the screen, its widgets and the app, plus the keyless commands."""

    def _commands(self) -> list[tuple[str, str, Command]]:
        app: ProofdeskApp = self.app  # type: ignore[assignment]
        found: list[tuple[str, str, Command]] = []
        seen: set[str] = set()
        for info in live_bindings(app, self.screen):
            # Every binding of ours has an id; the others are Textual widgets' own keys (scroll left, ...).
            if info.binding_id is None or info.action in SYSTEM_ACTIONS:
                continue
            name = f"{info.description}"
            if name in seen:
                name = f"{info.description} ({info.group})"
            seen.add(name)
            found.append((name, f"{info.group} · key {info.keys}", partial(app.run_action, info.action, info.node)))
        for profile in app.profile_names():
            found.append(
                (
                    f"Model: use profile {profile}",
                    "switch the model for the next runs",
                    partial(app.use_profile, profile),
                )
            )
        book = app.book_control()
        if book is not None:
            found.extend(book.commands())
        separators = getattr(self.screen, "set_separators", None)
        if separators is not None:
            for task in (*TASKS, None):
                label = f"Chunk separators: {task}" if task else "Chunk separators: off"
                found.append((label, "show where the chunks of this task start", partial(separators, task)))
        return found

    async def discover(self) -> Hits:
        for name, help_text, command in self._commands():
            # Content, not str: a name such as "Go to [n] or ID" or a profile's name is never markup.
            yield DiscoveryHit(Content(name), command, text=name, help=help_text)

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for name, help_text, command in self._commands():
            score = matcher.match(name)
            if score > 0:
                yield Hit(score, highlighted(name, matcher), command, text=name, help=help_text)


def highlighted(name: str, matcher: Matcher) -> Content:
    """``name`` as plain text with the letters the search matched styled (``Matcher.highlight`` would read
    ``name`` as markup)."""
    content = Content(name)
    _score, offsets = matcher.fuzzy_search.match(matcher.query, name)
    for offset in offsets:
        if not name[offset].isspace():
            content = content.stylize(matcher.match_style, offset, offset + 1)
    return content
