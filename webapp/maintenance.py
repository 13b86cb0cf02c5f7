"""Memory maintenance after a chat turn, off the request: consolidation and analysis can be slow."""

# In the background it is a stored job ("maintain", one queued per user), so any worker process
# of any host runs it and a restart loses nothing: pending pages stay in the store either way.

from __future__ import annotations

from typing import Any

from memoryos_core import MemoryEngine

from . import metrics

KIND = "maintain"


class Maintainer:
    """Runs maintenance inline (tests, single process) or queues it as a coalesced job."""

    def __init__(self, app: Any, engine: MemoryEngine, inline: bool) -> None:
        self.engine = engine
        self.inline = inline
        engine.jobs.register(KIND, lambda user_id, payload, progress: self.run(user_id),
                             keep=False)

    def run(self, user_id: str) -> dict[str, Any]:
        """One maintenance run with the user's model (the engine's resolver chooses it); its
        fallbacks are counted for /-/metrics."""
        report = self.engine.maintain(user_id)
        metrics.observe_maintenance(report)
        return report

    def request(self, user_id: str) -> dict[str, Any] | None:
        """Maintain this user's memory now (inline: its report) or soon (a queued job: None)."""
        if self.inline:
            return self.run(user_id)
        self.engine.jobs.submit(user_id, KIND, coalesce=True)
        return None

