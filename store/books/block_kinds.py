"""Which elements of an XHTML document's body are paragraphs (design sections 13 and 21).

- A *block* is an element with text and no block-holding element inside: ``p``, ``h1``–``h6``, ``li``,
  ``blockquote``, ``dt``, ``dd``, ``td``, ``th``, ``caption``, ``figcaption``, ``pre``, a ``div`` … and any other
  element in that place (a ``span`` or an ``a`` directly in ``body``, a ``section`` holding only text).
  One of :data:`EMPTY_BLOCKS` without text is an empty paragraph too (an empty ``p`` keeps its place; an empty
  table cell does not), as is a ``div`` holding only an image.
- An image (``img``, SVG ``image``, an ``svg`` without text) is an empty paragraph.
- In an ``svg``, each ``text`` element is a paragraph (kind ``svg text``); its ``title`` and ``desc`` are skipped.
- Text directly in an element that holds blocks (``body``, ``section``, ``div``, an ``li`` with a nested list …) is
  a *loose text* paragraph per text run.
- :data:`KEPT_AS_IS` (scripts, styles, MathML) is never text to translate: skipped, and counted as skipped. An
  element whose only text lies in one of them or in an SVG (a ``div`` holding a formula, or an SVG page with its
  words drawn in ``text``) is no paragraph itself: it is walked into.
- A spine document with no paragraph makes no chapter; what it left as it is is still counted (``epub_read``).
"""

from __future__ import annotations

EMPTY_BLOCKS = frozenset({"p", "h1", "h2", "h3", "h4", "h5", "h6", "li", "blockquote", "dt", "dd", "figcaption"})
# An element holding one of these is a container: its blocks are the paragraphs, not itself.
HOLDS_BLOCKS = EMPTY_BLOCKS | {
    "caption",
    "td",
    "th",
    "div",
    "ul",
    "ol",
    "dl",
    "section",
    "article",
    "aside",
    "figure",
    "table",
    "nav",
    "header",
    "footer",
    "main",
    "body",
    "tr",
    "tbody",
    "thead",
    "tfoot",
    "hr",
    "pre",
}
IMAGES = frozenset({"img", "image"})
KEPT_AS_IS = frozenset({"script", "style", "math", "template"})
OWN_TEXT = KEPT_AS_IS | {"svg"}  # text in these is not the words of the element around them
SVG_SKIPPED = frozenset({"title", "desc"})
LOOSE_TEXT = "loose text"
SVG_TEXT = "svg text"
PREFORMATTED = "pre"
