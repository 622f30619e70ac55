"""The glossary and the translation memory of each workspace, shared by the chapters of one ``run_chapters``.

Every chapter's run would otherwise make its own sources: its memory reading every chapter of the workspace at its
start and again, once changed, before each chunk (at ``--jobs 32`` over 64 chapters, thousands of chapter files
parsed, each by every run), its glossary parsing the file once more. Shared, a file is read once per change, as the
workstation's views and runs share theirs. Making one does no I/O (the first run to refresh it reads).
"""

from __future__ import annotations

from engine.glossary.source import GlossarySource
from engine.memory.source import MemorySource
from engine.run_request import RunRequest
from store.glossary_commit import GlossaryStore
from store.workspace import Workspace


class WorkspaceSources:
    """One glossary source per workspace and one memory source per workspace and language pair."""

    def __init__(self) -> None:
        self._glossaries: dict[str, GlossarySource] = {}
        self._memories: dict[tuple[str, str | None, str | None], MemorySource] = {}

    def glossary(self, workspace: Workspace) -> GlossarySource:
        """The workspace's glossary source."""
        key = str(workspace.root)
        if key not in self._glossaries:
            self._glossaries[key] = GlossarySource(GlossaryStore(workspace))
        return self._glossaries[key]

    def memory(self, workspace: Workspace, request: RunRequest) -> MemorySource:
        """The workspace's memory for the request's languages (None: the chapters' own)."""
        key = (str(workspace.root), request.source_language, request.target_language)
        if key not in self._memories:
            self._memories[key] = MemorySource(
                workspace, source_language=request.source_language, target_language=request.target_language
            )
        return self._memories[key]
