"""The chapters of the workspace an MCP session serves, each named by its ``id`` or its file name.

A name from a client is hostile input: it is only ever compared with the workspace's own file names and chapter
IDs, never made into a path. Each chapter file has one ``ChapterStore`` for the session, so a file read once is
read again only when its stat changes.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from engine.mcp.refusal import Refusal
from engine.tools.results import ErrorCode, failure, ok
from store.commit import ChapterStore
from store.errors import StoreError
from store.merge import DEFAULT_KEEP_VERSIONS
from store.model import Chapter
from store.workspace import Workspace


class WorkspaceChapters:
    """The workspace's chapter files in file-name order (book order), and one store for each."""

    def __init__(self, workspace: Workspace, keep_versions: int = DEFAULT_KEEP_VERSIONS) -> None:
        self.workspace = workspace
        self.keep_versions = keep_versions
        self._stores: dict[str, ChapterStore] = {}

    def store(self, path: Path) -> ChapterStore:
        """The session's store of the chapter file ``path`` (a file of this workspace)."""
        store = self._stores.get(path.name)
        if store is None:
            store = self._stores[path.name] = ChapterStore(path, self.workspace, self.keep_versions)
        return store

    def loaded(self) -> Iterator[tuple[Path, Chapter | str]]:
        """Each chapter file with its chapter, or the one sentence saying why it is none."""
        for path in self.workspace.chapter_paths():
            try:
                yield path, self.store(path).load()
            except (StoreError, OSError) as exc:
                yield path, str(exc)

    def listed(self) -> dict[str, Any]:
        """``list_chapters``: ``{chapter, file, title}`` per chapter; files that are no chapter under ``problems``."""
        chapters, problems = [], []
        for path, chapter in self.loaded():
            if isinstance(chapter, Chapter):
                chapters.append({"chapter": chapter.id, "file": path.name, "title": chapter.title})
            else:
                problems.append({"file": path.name, "error": chapter})
        return ok(chapters=chapters, count=len(chapters), **({"problems": problems} if problems else {}))

    def find(self, name: str) -> ChapterStore:
        """The store of the chapter whose file name, else whose ``id``, is ``name``; refused when none or several."""
        found = self._named(name)
        if len(found) != 1:
            raise Refusal(_not_found(name, [p.name for p in found]))
        try:
            return self.store(found[0])
        except StoreError as exc:  # a symbolic link in place of the chapter file, refused by the store
            raise Refusal(_unavailable(exc)) from None

    def _named(self, name: str) -> list[Path]:
        """The file called ``name``, else the chapter files whose ``id`` is ``name``."""
        by_file = [path for path in self.workspace.chapter_paths() if path.name == name]
        return by_file or [
            path for path, chapter in self.loaded() if isinstance(chapter, Chapter) and chapter.id == name
        ]

    def before(self, store: ChapterStore) -> Chapter | None:
        """The chapter before ``store``'s in file-name order, as a workspace run reads it for the context of a
        chapter's start (None for the first, or one that cannot be read: context never stops the work)."""
        paths = self.workspace.chapter_paths()
        names = [p.name for p in paths]
        at = names.index(store.path.name) if store.path.name in names else 0
        if at == 0:
            return None
        try:
            return self.store(paths[at - 1]).load()
        except (StoreError, OSError):
            return None


def readable(store: ChapterStore) -> Chapter:
    """The chapter on disk now; one that cannot be read is refused with ``CHAPTER_UNAVAILABLE``."""
    try:
        return store.load()
    except (StoreError, OSError) as exc:
        raise Refusal(_unavailable(exc)) from None


def _unavailable(exc: Exception) -> dict[str, Any]:
    return failure(
        ErrorCode.CHAPTER_UNAVAILABLE,
        f"The chapter file cannot be read right now: {exc}",
        "Wait a moment and try again; the editor may be saving the file.",
    )


def _not_found(name: str, files: list[str]) -> dict[str, Any]:
    if files:
        return failure(
            ErrorCode.CHAPTER_NOT_FOUND,
            f"Several chapter files have the id '{name}': {', '.join(files)}.",
            "Name the chapter by its file name instead.",
            files=files,
        )
    return failure(
        ErrorCode.CHAPTER_NOT_FOUND,
        f"No chapter of this workspace has the id or file name '{name}'.",
        "Call list_chapters and pass a chapter's id or file name.",
    )
