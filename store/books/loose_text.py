"""Exporting a loose text paragraph: a run of text directly in ``body``, ``section``, ``div`` … (``block_walk``).

Its ``source_ref.path`` is its parent's path and ``/text()[n]`` (``element_path.text_runs``). The translated book
replaces the run's words, keeping the ASCII whitespace around them (the markup's indentation); the bilingual book
keeps the run and puts the translation right after it as ``<span class="proofdesk-translation" lang="…">``.
"""

from __future__ import annotations

from lxml import etree

from store.books.edition_lang import set_lang
from store.books.epub_blocks import TRANSLATION_CLASS

Run = tuple[etree._Element, bool]  # (the parent, False) for its own text; (a child, True) for that child's tail
_ASCII_SPACE = " \t\n\r\f"


def _get(run: Run) -> str:
    el, tail = run
    return (el.tail if tail else el.text) or ""


def _set(run: Run, text: str) -> None:
    el, tail = run
    if tail:
        el.tail = text
    else:
        el.text = text


def replace_run(run: Run, text: str) -> None:
    """The run's words replaced by ``text``; its leading and trailing ASCII whitespace kept."""
    old = _get(run)
    words = old.strip(_ASCII_SPACE)
    start = len(old) - len(old.lstrip(_ASCII_SPACE))
    _set(run, old[:start] + text + old[start + len(words) :])


def _namespace(run: Run) -> str:
    """The ``{uri}`` of the element holding the run (``''`` when it has none)."""
    el, tail = run
    holder = el.getparent() if tail else el
    tag = holder.tag if holder is not None else ""
    return tag.rpartition("}")[0] + "}" if isinstance(tag, str) and tag.startswith("{") else ""


def add_translation_run(run: Run, text: str, lang: str | None) -> None:
    """A ``span`` holding ``text`` right after the run, in the namespace of the element around it."""
    el, tail = run
    span = etree.Element(f"{_namespace(run)}span", {"class": TRANSLATION_CLASS})
    span.text = text
    if lang:
        set_lang(span, lang)
    if tail:
        el.addnext(span)  # el keeps its tail: the run, then the span
    else:
        el.insert(0, span)
