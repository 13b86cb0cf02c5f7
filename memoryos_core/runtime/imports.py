"""Imports of past conversations and reference data folders, and the uploads a host keeps
between a preview and its run, as MemoryEngine methods."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

from ..config import EngineConfig
from ..context import Context
from ..errors import check_user
from ..llm import ChatModel
from ..memory import analysis, consolidation
from ..storage.base import BaseStore
from ..transfer import importing
from ..transfer.importing import ImportReport, Preview
from .jobs import Progress, keep_upload, kept_upload, staged

if TYPE_CHECKING:  # the module itself is loaded on first use
    from ..transfer.reference_import import FolderImport, FolderPreview


class Imports:
    """Import a dialogue or a reference folder; keep an upload (mixed into MemoryEngine)."""

    ctx: Context
    store: BaseStore
    config: EngineConfig
    max_expanded_bytes: int

    if TYPE_CHECKING:
        def _user_lock(self, user_id: str) -> threading.Lock: ...

        def _ctx_for(self, user_id: str, model: ChatModel | None) -> Context: ...

    def import_dialogue(
        self, user_id: str, source: Any, fmt: str = "auto", speaker: str | None = None,
        progress: Progress | None = None, maintain: bool = True, select: str | None = None,
        model: ChatModel | None = None,
    ) -> ImportReport:
        """Validate a dialogue (any supported format), admit it as one unit, then file it."""
        with self._user_lock(check_user(user_id)):
            stages = staged(progress, {"embedding": (0, 30), "reading": (0, 30),
                                       "stored": (30, 35),
                                       "consolidation": (35, 80), "analysis": (80, 100)})
            report = importing.import_dialogue(self.ctx, user_id, source, fmt, speaker,
                                               stages, select, self.max_expanded_bytes)
            if maintain and report.get("exchange_ids"):
                ctx = self._ctx_for(user_id, model)
                batches = consolidation.consolidate(ctx, user_id, force=False, progress=stages)
                if self.config.import_analysis == "inline":  # the import's report, whole
                    report = {**report, "consolidation_batches": len(batches),
                              "analysis": analysis.analyse(ctx, user_id, force=False,
                                                           progress=stages)}
                else:
                    report = {**report, "consolidation_batches": len(batches),
                              "analysis_deferred": True}
            if progress:
                progress(100, 100, "done")
        return report

    def preview_import(self, user_id: str, source: Any, fmt: str = "auto",
                       speaker: str | None = None, select: str | None = None) -> Preview:
        """What an import would admit and skip, writing nothing (a large chat export is read
        for a few seconds, then the preview says how far it got)."""
        return importing.preview(self.ctx, check_user(user_id), source, fmt, speaker, select,
                                 expanded=self.max_expanded_bytes)

    def check_import(self, source: Any, fmt: str = "auto", speaker: str | None = None,
                     select: str | None = None) -> str:
        """The format of an import, refused early when unreadable; the job reads the rest."""
        return importing.check(source, fmt, speaker, select, self.max_expanded_bytes)

    # -- a reference MemoryOS data folder ---------------------------------------------------

    def preview_reference(self, user_id: str, files: dict[str, bytes], ref_user: str | None = None,
                          assistant: str | None = None) -> FolderPreview:
        """What importing a reference data folder would bring in, writing nothing."""
        from ..transfer import reference_import

        check_user(user_id)
        return reference_import.preview(self.ctx, files, ref_user, assistant)

    def import_reference(self, user_id: str, files: dict[str, bytes], ref_user: str | None = None,
                         assistant: str | None = None,
                         progress: Progress | None = None) -> FolderImport:
        """Import a reference data folder ({relative path: bytes}) into this user, all at once."""
        from ..transfer import reference_import

        with self._user_lock(check_user(user_id)):
            return reference_import.run(self.ctx, user_id, files, ref_user, assistant, progress)

    # -- uploads a host keeps between a preview and its run ---------------------------------

    def keep_upload(self, user_id: str, token: str, kind: str, data: bytes, keep: int,
                    max_age: float) -> None:
        """Keep an upload under a token: the user's newest `keep` of a kind stay, and every
        upload older than `max_age` seconds goes."""
        keep_upload(self.store, check_user(user_id), token, kind, data, keep, max_age)

    def kept_upload(self, user_id: str, token: str, kind: str, take: bool = False) -> bytes | None:
        """A kept upload of the user, or None; `take` claims it exactly once."""
        return kept_upload(self.store, check_user(user_id), token, kind, take)
