"""The QA warnings of a whole book as a text to read in the workstation (pure: no Textual, no Rich).

One line per warning, grouped by chapter in the book's order: where (``[12] p0000012``), the code, its severity and
its message, as ``proofdesk check WORKSPACE`` finds them (INCONSISTENT across chapters too).
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.checks import CheckWarning
from engine.counted import counted


def check_report(
    names: Sequence[str], found: Sequence[Sequence[CheckWarning]], unread: Sequence[str] = ()
) -> tuple[str, str]:
    """The title (``QA warnings of the book: 12 in 3 of 5 chapters``) and the text of the report."""
    total = sum(len(warnings) for warnings in found)
    warned = sum(1 for warnings in found if warnings)
    title = f"QA warnings of the book: {counted(total, 'warning')} in {warned} of {counted(len(names), 'chapter')}"
    lines: list[str] = []
    for name, warnings in zip(names, found, strict=True):
        lines.append(f"{name}: {counted(len(warnings), 'warning')}" if warnings else f"{name}: no warnings")
        lines.extend(
            f"  [{w.paragraph_index}] {w.paragraph_id} · {w.code} ({w.severity}): {w.message}" for w in warnings
        )
    lines.extend(f"{name}: not checked (not valid on disk)" for name in unread)
    return title, "\n".join(lines)
