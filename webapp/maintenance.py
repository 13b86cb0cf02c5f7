"""Memory maintenance after a chat turn, off the request: consolidation and analysis can be slow.

In the background it is a stored job ("maintain", one queued per user), so any worker process
of any host runs it and a restart loses nothing: pending pages stay in the store either way.
"""

from __future__ import annotations

from typing import Any

from memoryos_core import MemoryEngine
from memoryos_core.llm import ChatModel

from .models import engine_user_model

KIND = "maintain"


class Maintainer:
    """Runs maintenance inline (tests, single process) or queues it as a coalesced job."""

    def __init__(self, app: Any, engine: MemoryEngine, inline: bool) -> None:
        self.engine = engine
        self.inline = inline
        engine.jobs.register(KIND, lambda user_id, payload, progress: engine.maintain(
            user_id, model=engine_user_model(app, user_id)), keep=False)

    def request(self, user_id: str, model: ChatModel | None) -> None:
        """Maintain this user's memory now (inline) or soon (a queued job)."""
        if self.inline:
            self.engine.maintain(user_id, model=model)
            return
        self.engine.jobs.submit(user_id, KIND, coalesce=True)


def maintainer(app: Any) -> Maintainer:
    """The app's maintainer."""
    return app.extensions["memplay_maintainer"]  # type: ignore[no-any-return]
