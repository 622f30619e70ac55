"""The offline demo model's mind: from the conversation so far, decide the next turn.

It behaves like a careful model: it first reaches for context before the chunk (and hits the chunk
boundary), recovers by reading forward within the chunk, makes one submission mistake in the second
chunk (by ``index`` instead of ``paragraph_id``) and corrects it, then submits in batches. Texts are
clearly marked pseudo-translations. Everything is derived from the messages, so the plan is
stateless and deterministic — the same history always gives the same turn.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field, replace
from typing import Any

LINE = re.compile(r"^\[(\d+)\] \[ID: ([^\]\s]+)\] (?:Source: )?(.*)$")
PART = re.compile(r"part (\d+) of (\d+)", re.I)
BATCH_SIZE = 4


@dataclass(frozen=True)
class ChunkLine:
    """One paragraph of the chunk as the model sees it."""

    index: int
    paragraph_id: str
    source: str
    translation: str | None = None


@dataclass(frozen=True)
class DemoTurn:
    """What the demo model says and which tools it calls (name, arguments) this turn."""

    text: str
    tool_calls: tuple[tuple[str, dict[str, Any]], ...] = ()
    reasoning: str = ""


@dataclass
class _Seen:
    submitted: set[str] = field(default_factory=set)
    probed_before: bool = False
    boundary_hit: bool = False
    read_forward: bool = False
    index_mistake_made: bool = False
    last_error: str | None = None

    def note(self, name: str, result: dict[str, Any]) -> None:
        """What one tool result tells the plan."""
        ok = bool(result.get("success"))
        code = result.get("error_code")
        self.last_error = None if ok else code
        if name == "get_previous_paragraphs":
            self.probed_before = True
            self.boundary_hit = self.boundary_hit or code == "CHUNK_BOUNDARY"
        elif name == "get_next_paragraphs":
            self.read_forward = True
        elif name == "add_translation_batch":
            self._note_batch(ok, code, result)

    def _note_batch(self, ok: bool, code: object, result: dict[str, Any]) -> None:
        if code == "INDEX_NOT_ACCEPTED":
            self.index_mistake_made = True
        if ok:
            self.submitted.update(result.get("accepted", ()))
            self.submitted.update(result.get("unchanged", ()))


def parse_chunk(message: str) -> tuple[list[ChunkLine], int]:
    """The chunk's lines and its part number (1-based) from the chunk user message; a paragraph of several lines
    (its source or its translation) is read whole."""
    lines: list[ChunkLine] = []
    open_text: str | None = None
    for raw in message.splitlines():
        open_text = _read_line(raw, lines, open_text)
    part = PART.search(message)
    return lines, int(part.group(1)) if part else 1


def _read_line(raw: str, lines: list[ChunkLine], open_text: str | None) -> str | None:
    """Read one line of the message into ``lines``; which text (``source``, ``translation``) the next line may
    continue, or None."""
    m = LINE.match(raw)
    if m:
        lines.append(ChunkLine(int(m.group(1)), m.group(2), m.group(3)))
        return "source"
    if raw.startswith("Translation: ") and lines:
        lines[-1] = replace(lines[-1], translation=raw.removeprefix("Translation: "))
        return "translation"
    if open_text is None or not raw or raw.startswith("("):
        return None  # a blank line, a context line or a mark ends the entry's text
    lines[-1] = _continued(lines[-1], open_text, raw)
    return open_text


def _continued(last: ChunkLine, open_text: str, raw: str) -> ChunkLine:
    if open_text == "source":
        return replace(last, source=f"{last.source}\n{raw}")
    return replace(last, translation=f"{last.translation}\n{raw}")


def _json_object(text: str | None) -> dict[str, Any]:
    """``text`` parsed, or an empty object when it is not JSON (the plan never fails on a message)."""
    try:
        value = json.loads(text or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _calls_of(message: dict[str, Any]) -> dict[str, tuple[str, dict[str, Any]]]:
    """Call ID -> (tool name, arguments) of an assistant message's tool calls."""
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for call in message.get("tool_calls") or ():
        fn = call.get("function", {})
        calls[call.get("id", "")] = (fn.get("name", ""), _json_object(fn.get("arguments")))
    return calls


def _history(messages: list[dict[str, Any]]) -> _Seen:
    seen = _Seen()
    calls: dict[str, tuple[str, dict[str, Any]]] = {}
    for msg in messages:
        if msg.get("role") == "assistant":
            calls.update(_calls_of(msg))
        elif msg.get("role") == "tool":
            name, _ = calls.get(msg.get("tool_call_id", ""), ("", {}))
            seen.note(name, _json_object(msg.get("content")))
    return seen


def pseudo_translation(task: str, line: ChunkLine, target: str) -> str:
    """A clearly marked stand-in for a real model's work."""
    if task == "translate":
        return f"[demo {target}] {line.source.strip()}"
    base = line.translation or line.source.strip()
    mark = "polished" if task == "polish" else "proofread"
    return f"{base} [demo {mark}]"


def _wants_change(task: str, line: ChunkLine) -> bool:
    # Polish/proofread submit only what they change: the demo "changes" every other paragraph.
    return task == "translate" or line.index % 2 == 1


def _reading_turn(lines: list[ChunkLine], seen: _Seen) -> DemoTurn | None:
    """First the context before the chunk (which the boundary refuses), then forward within it; None once read."""
    first = lines[0]
    if not seen.probed_before:
        return DemoTurn(
            f"Let me read what comes before [{first.index}] for context.",
            (("get_previous_paragraphs", {"paragraph_id": first.paragraph_id, "count": 2}),),
            reasoning="Context before the first paragraph would help with tone.",
        )
    if len(lines) == 1 or seen.read_forward:
        return None
    note = (
        "That is outside my chunk; I will read forward within it instead."
        if seen.boundary_hit
        else "Now the paragraphs that follow."
    )
    count = min(2, len(lines) - 1)
    return DemoTurn(note, (("get_next_paragraphs", {"paragraph_id": first.paragraph_id, "count": count}),))


# What a real reviser says with each change (the editor reads it in the review queue).
_DEMO_NOTES: dict[str, dict[str, str]] = {
    "polish": {"reason": "Demo: a marked stand-in for a smoother sentence.", "category": "fluency"},
    "proofread": {"reason": "Demo: a marked stand-in for a corrected error.", "category": "grammar"},
}


def _submission_turn(batch: list[ChunkLine], part: int, seen: _Seen, task: str, target_language: str) -> DemoTurn:
    """One batch; in part 2 the first item is sent by index once (the mistake the tools refuse), then fixed."""
    items: list[dict[str, Any]] = [
        {"paragraph_id": ln.paragraph_id, "translated_text": pseudo_translation(task, ln, target_language)}
        | _DEMO_NOTES.get(task, {})
        for ln in batch
    ]
    text = f"Submitting [{batch[0].index}]–[{batch[-1].index}]."
    if part == 2 and not seen.index_mistake_made:
        items[0] = {"index": batch[0].index, "translated_text": items[0]["translated_text"]}
    elif seen.last_error == "INDEX_NOT_ACCEPTED":
        text = "Right — submissions use the paragraph_id from [ID: …], not the index. Resubmitting."
    return DemoTurn(text, (("add_translation_batch", {"paragraphs": items}),))


def _chunk_message(messages: list[dict[str, Any]]) -> str:
    """The first user message: the chunk."""
    user = next((m.get("content") for m in messages if m.get("role") == "user"), None)
    return user if isinstance(user, str) else ""


def plan_turn(messages: list[dict[str, Any]], *, task: str, target_language: str = "en") -> DemoTurn:
    """The demo model's next turn for this conversation."""
    lines, part = parse_chunk(_chunk_message(messages))
    if not lines:
        return DemoTurn("I see no paragraphs to work on in this message.")
    seen = _history(messages)
    reading = _reading_turn(lines, seen)
    if reading is not None:
        return reading
    todo = [ln for ln in lines if ln.paragraph_id not in seen.submitted and _wants_change(task, ln)]
    if not todo:
        return DemoTurn("All paragraphs of this part are done: no changes to the others.")
    return _submission_turn(todo[:BATCH_SIZE], part, seen, task, target_language)
