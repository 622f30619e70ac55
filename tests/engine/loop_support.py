"""Shared pieces of the loop and run tests: a small chapter with empty paragraphs, and running it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from engine.config import ApiKey, ModelSettings
from engine.events import EngineEvent
from engine.run import run_chapter
from engine.run_request import RunRequest
from store.loader import load_chapter
from store.model import Chapter, Paragraph
from store.serialize import chapter_bytes

# Eight paragraphs, two of them empty: indexes 1..8, work set [1, 3, 4, 5, 7, 8].
TEXTS = [
    "ある日の暮方の事である。一人の下人が、羅生門の下で雨やみを待っていた。",
    "",
    "広い門の下には、この男のほかに誰もいない。ただ、所々丹塗の剥げた、大きな円柱に、蟋蟀が一匹とまっている。",
    "何故かと云うと、この二三年、京都には、地震とか辻風とか火事とか饑饉とか云う災がつづいて起った。",
    "\u3000",
    "その代りまた鴉がどこからか、たくさん集って来た。昼間見ると、その鴉が何羽となく輪を描いて、高い鴟尾のまわりを啼きながら、飛びまわっている。",
    "下人は七段ある石段の一番上の段に、洗いざらした紺の襖の尻を据えて、右の頬に出来た、大きな面皰を気にしながら、ぼんやり、雨のふるのを眺めていた。",
    "作者はさっき、「下人が雨やみを待っていた」と書いた。",
]
IDS = [f"a{i:07x}" for i in range(1, len(TEXTS) + 1)]


def write_chapter(folder: Path, name: str = "ch01.json", *, target: str = "en") -> Path:
    """A chapter file with TEXTS under fixed IDs."""
    chapter = Chapter(
        id="ch01",
        title="羅生門",
        title_translation=None,
        source_language="ja",
        target_language=target,
        paragraphs=tuple(Paragraph(id=pid, text=text) for pid, text in zip(IDS, TEXTS, strict=True)),
    )
    path = folder / name
    path.write_bytes(chapter_bytes(chapter))
    return path


def settings_for(base_url: str, key: str | None = None) -> ModelSettings:
    """Model settings pointing at the scripted server."""
    return ModelSettings(model="test-model", base_url=base_url, api_key=ApiKey(key) if key else None)


async def collect(request: RunRequest) -> list[EngineEvent]:
    """Run to the end and return every event."""
    return [event async for event in run_chapter(request)]


def kinds(events: list[EngineEvent], kind: str) -> list[Any]:
    """The events of one kind."""
    return [e for e in events if e.kind == kind]


def selected_texts(path: Path) -> dict[str, str | None]:
    """Paragraph ID -> selected translation text, as on disk now."""
    return {p.id: p.selected_text for p in load_chapter(path).paragraphs}
