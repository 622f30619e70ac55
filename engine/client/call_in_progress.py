"""A tool call while its fragments stream in: its id, name, argument fragments, and whether they already form an
object (so a fragment that opens a new object starts a new call; some gateways reuse one index for every call)."""

from __future__ import annotations

import json
import re
from typing import Any

from engine.client.arguments import split_concatenated


class CallInProgress:
    """A tool call being assembled from its streamed fragments."""

    __slots__ = ("args", "args_len", "extra", "id", "name", "never_object", "position", "scan")

    def __init__(self, position: int) -> None:
        self.position = position
        self.id: str | None = None
        self.name = ""
        self.args: list[str] = []
        self.args_len = 0
        self.extra: dict[str, Any] | None = None
        self.scan = BracketScan()
        self.never_object = False  # the arguments hold an error no later fragment can repair

    def take_name(self, name: str) -> bool:
        """Take a delta's ``name``; whether the call's name changed. A name resent on every delta is not added again
        (``read_fileread_file``); a name fragmented across deltas (``edit_ex`` + ``isting_file``) is joined."""
        if name == self.name:
            return False
        if not self.name:
            self.name = name
            return True
        if self.args_len or name.startswith(self.name):
            return False
        self.name += name
        return True

    def starts_new_call(self, call_id: str | None, name: str | None, fragment: str) -> bool:
        """Whether a delta matched to this call starts another one: it brings a different id, or a name (or an id)
        and a new object after arguments that already form one."""
        if call_id is None:
            return name is not None and self._opens_another_object(fragment)  # the usual case: a continuation
        if self.id is not None:
            return call_id != self.id
        return self._opens_another_object(fragment)

    def _opens_another_object(self, fragment: str) -> bool:
        return self.args_len > 0 and fragment.lstrip().startswith("{") and self.args_form_object()

    def args_form_object(self) -> bool:
        """The arguments so far are a complete object (or several glued ones): a new object starts a new call.

        Asked each time a fragment that could open a new call arrives, so it must not re-read what it has read:
        the fragments are scanned once (nesting, strings), and the text is parsed only when its brackets balance.
        A balanced text that is not an object never becomes one by growing (the error stays where it is).
        """
        if self.never_object or not self.scan.feed(self.args):
            return False
        if _forms_objects("".join(self.args)):
            return True
        self.never_object = True
        return False


def _forms_objects(text: str) -> bool:
    """Whether ``text`` is a JSON object, or several glued one after another."""
    try:
        return isinstance(json.loads(text), dict)
    except (ValueError, RecursionError):
        return split_concatenated(text) is not None


# What matters inside a string (its end, an escape) and outside one (brackets, the start of a string).
_STRING_STOPS = re.compile(r'["\\]')
_STRUCTURE = re.compile(r'[{}\[\]"]')


class BracketScan:
    """Bracket depth and string state over fragments, read once each (``feed`` takes only the new ones)."""

    __slots__ = ("depth", "escaped", "in_string", "opened", "read", "spoiled")

    def __init__(self) -> None:
        self.depth = 0
        self.read = 0  # fragments read so far
        self.in_string = self.escaped = self.opened = self.spoiled = False

    def feed(self, fragments: list[str]) -> bool:
        """Read the fragments not yet read; whether the text so far is balanced (outside any string)."""
        for fragment in fragments[self.read :]:
            self._fragment(fragment)
        self.read = len(fragments)
        return self.balanced

    @property
    def balanced(self) -> bool:
        """The text read so far opened a bracket, closed every one, and is outside any string."""
        return self.opened and not self.spoiled and not self.in_string and self.depth == 0

    def _fragment(self, fragment: str) -> None:
        at = 1 if self.escaped else 0  # a backslash ending the previous fragment escaped this one's first character
        self.escaped = False
        while at < len(fragment):
            at = self._in_string(fragment, at) if self.in_string else self._outside_string(fragment, at)

    def _in_string(self, fragment: str, at: int) -> int:
        """Read a string from ``at`` to its end or the next escape; where to go on."""
        found = _STRING_STOPS.search(fragment, at)
        if found is None:
            return len(fragment)
        if found.group() == "\\":
            self.escaped = found.end() == len(fragment)  # it escapes the next fragment's first character
            return found.end() + 1
        self.in_string = False
        return found.end()

    def _outside_string(self, fragment: str, at: int) -> int:
        """Read from ``at`` to the next bracket or the start of a string; where to go on."""
        found = _STRUCTURE.search(fragment, at)
        if found is None:
            return len(fragment)
        char = found.group()
        if char == '"':
            self.in_string = True
        elif char in "{[":
            self.depth += 1
            self.opened = True
        else:
            self.depth -= 1
            self.spoiled = self.spoiled or self.depth < 0
        return found.end()
