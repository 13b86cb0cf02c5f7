"""Memory maintenance after a chat turn, off the request: consolidation and analysis can be slow."""

from __future__ import annotations

import logging
import queue
import threading
from typing import Any

from memoryos_core import MemoryEngine
from memoryos_core.llm import ChatModel

log = logging.getLogger(__name__)


class Maintainer:
    """One worker thread per app; requests for the same user are coalesced."""

    def __init__(self, engine: MemoryEngine, inline: bool) -> None:
        self.engine = engine
        self.inline = inline
        self._queue: queue.Queue[tuple[str, ChatModel | None]] = queue.Queue()
        self._waiting: set[str] = set()
        self._guard = threading.Lock()
        self._thread: threading.Thread | None = None

    def request(self, user_id: str, model: ChatModel | None) -> None:
        """Maintain this user's memory now (inline) or soon (background)."""
        if self.inline:
            self.engine.maintain(user_id, model=model)
            return
        with self._guard:
            if user_id in self._waiting:
                return
            self._waiting.add(user_id)
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._run, name="memory-maintenance",
                                                daemon=True)
                self._thread.start()
        self._queue.put((user_id, model))

    def _run(self) -> None:
        while True:
            user_id, model = self._queue.get()
            with self._guard:
                self._waiting.discard(user_id)
            try:
                self.engine.maintain(user_id, model=model)
            except Exception:  # logged; pages stay pending and the next turn retries
                log.exception("memory maintenance failed for one user")


def maintainer(app: Any) -> Maintainer:
    """The app's maintainer."""
    return app.extensions["memplay_maintainer"]  # type: ignore[no-any-return]
