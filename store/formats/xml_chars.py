"""What XML 1.0 can hold: a chapter's text may carry control characters (or a lone surrogate) that no XML document
can, so the XML exports write them as U+FFFD (XLIFF 2 has ``<cp hex>`` for them instead)."""

from __future__ import annotations

import re

# The complement of XML 1.0's Char production: #x9 | #xA | #xD | [#x20-#xD7FF] | [#xE000-#xFFFD] | [#x10000-#x10FFFF]
NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_safe(text: str) -> str:
    """``text`` with every character XML cannot hold written as U+FFFD."""
    return NOT_XML.sub("\ufffd", text)
