"""The embedded chat model loaded in the background at server start, so no answer waits for it."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from flask import Flask

log = logging.getLogger(__name__)
KEY = "memplay_warmup"


def state(app: Flask) -> dict[str, Any]:
    """{"state": "loading" | "ready" | "failed" | "off", "seconds": float | None}."""
    return app.extensions.get(KEY) or {"state": "off", "seconds": None}


def start(app: Flask) -> None:
    """Load the instance's default model in a daemon thread when it is the embedded one
    (MEMPLAY_WARM_UP_MODEL, on except in testing)."""
    engine = app.extensions["memoryos"]
    wanted = app.config.get("WARM_UP_MODEL", app.config["ENV"] != "testing")
    configured = engine.configured_chat_model
    if not wanted or (configured is not None and not getattr(configured, "embedded", False)):
        return
    status: dict[str, Any] = {"state": "loading", "seconds": None}
    app.extensions[KEY] = status

    def load() -> None:
        started = time.perf_counter()
        try:
            model = engine.chat_model()  # the resolver's instance: the one answers use
            warm = getattr(model, "warm_up", None)
            if callable(warm):
                warm()
            status.update(state="ready", seconds=round(time.perf_counter() - started, 1))
        except Exception:  # noqa: BLE001 - the first answer reports the error to the user
            log.exception("warming up the chat model failed")
            status.update(state="failed", seconds=round(time.perf_counter() - started, 1))

    threading.Thread(target=load, name="model-warm-up", daemon=True).start()
