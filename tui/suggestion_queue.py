"""The pending suggestions of a chapter as the review queue shows them, and its filters (pure, no Textual).

A suggestion is a version with ``status: suggested`` (section 16); the queue lists them in chapter order, and
within a paragraph in the order they were added. A filter keeps the suggestions of one category or of one model.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from store.model import Chapter, Paragraph, TranslationVersion

NO_CATEGORY = "(no category)"
NO_MODEL = "(no model)"


@dataclass(frozen=True)
class Suggestion:
    """One pending suggestion and the paragraph it is for, as the chapter holds them now."""

    position: int  # the paragraph's 0-based position in the chapter
    paragraph: Paragraph
    version: TranslationVersion

    @property
    def category(self) -> str:
        """The category the model gave, or :data:`NO_CATEGORY`."""
        return self.version.category or NO_CATEGORY

    @property
    def model(self) -> str:
        """The model that made it, or :data:`NO_MODEL`."""
        return self.version.model or NO_MODEL

    @property
    def outdated(self) -> bool:
        """The paragraph's selected version is no longer the one the model read."""
        return self.paragraph.selected_translation_id != self.version.based_on


def pending_suggestions(chapter: Chapter) -> list[Suggestion]:
    """Every pending suggestion of ``chapter``, in chapter order."""
    return [
        Suggestion(position, para, version)
        for position, para in enumerate(chapter.paragraphs)
        for version in para.pending
    ]


def pending_count(chapter: Chapter) -> int:
    """How many suggestions of ``chapter`` wait for the editor."""
    return sum(len(para.pending) for para in chapter.paragraphs)


FilterKind = Literal["category", "model"]


@dataclass(frozen=True)
class QueueFilter:
    """Only the suggestions of one category, or of one model."""

    kind: FilterKind
    value: str

    def keeps(self, suggestion: Suggestion) -> bool:
        """Whether ``suggestion`` passes the filter."""
        return (suggestion.category if self.kind == "category" else suggestion.model) == self.value

    @property
    def label(self) -> str:
        """``category grammar``, ``model gpt-4o``."""
        return f"{self.kind} {self.value}"


def filter_choices(suggestions: Sequence[Suggestion]) -> list[tuple[QueueFilter, int]]:
    """The filters that keep at least one of ``suggestions``, each with how many it keeps: the categories, then
    the models, each in the order they first come."""
    categories = Counter(s.category for s in suggestions)
    models = Counter(s.model for s in suggestions)
    return [
        *((QueueFilter("category", value), count) for value, count in categories.items()),
        *((QueueFilter("model", value), count) for value, count in models.items()),
    ]


def filtered(suggestions: Sequence[Suggestion], only: QueueFilter | None) -> list[Suggestion]:
    """The suggestions ``only`` keeps (all of them when None)."""
    return list(suggestions) if only is None else [s for s in suggestions if only.keeps(s)]
