"""The bundled sample chapter (Akutagawa's Rashomon, Japanese, with empty paragraphs): the demo's chapter."""

from __future__ import annotations

from importlib.resources import files

from store.model import Chapter

SAMPLE = "rashomon.json"
_SAMPLE_ID, _SAMPLE_TITLE = "rashomon", "羅生門"


def sample_bytes() -> bytes:
    """The sample chapter file as shipped."""
    return files("tui").joinpath("samples", SAMPLE).read_bytes()


def is_bundled_sample(chapter: Chapter) -> bool:
    """Whether ``chapter`` is (a copy of) the bundled sample, where the offline demo model is expected."""
    return chapter.id == _SAMPLE_ID and chapter.title == _SAMPLE_TITLE
