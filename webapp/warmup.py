"""The embedded chat model and the embedding model loaded in the background at server start,
so no answer waits for either (a cold first message waited ~6 s on the embedder)."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from flask import Flask

from memoryos_core.answer import grounded

log = logging.getLogger(__name__)
KEY = "memplay_warmup"


def state(app: Flask) -> dict[str, Any]:
    """{"state": "loading" | "ready" | "failed" | "off", "seconds": float | None}."""
    return app.extensions.get(KEY) or {"state": "off", "seconds": None}


def start(app: Flask) -> None:
    """Load the embedding model (with the answer layer's router) and, when it is the embedded
    one, the instance's default chat model, in a daemon thread (MEMPLAY_WARM_UP_MODEL, on
    except in testing)."""
    engine = app.extensions["memoryos"]
    wanted = app.config.get("WARM_UP_MODEL", app.config["ENV"] != "testing")
    if not wanted:
        return
    configured = engine.configured_chat_model
    embedded = configured is None or getattr(configured, "embedded", False)
    status: dict[str, Any] = {"state": "loading", "seconds": None}
    app.extensions[KEY] = status

    def load() -> None:
        started = time.perf_counter()
        try:
            grounded.warm_up(engine.ctx.embedder)
            status["embedder_seconds"] = round(time.perf_counter() - started, 1)
            if embedded:
                model = engine.chat_model()  # the resolver's instance: the one answers use
                warm = getattr(model, "warm_up", None)
                if callable(warm):
                    warm()
            status.update(state="ready", seconds=round(time.perf_counter() - started, 1))
        except Exception:  # noqa: BLE001 - the first answer reports the error to the user
            log.exception("warming up the chat model failed")
            status.update(state="failed", seconds=round(time.perf_counter() - started, 1))

    threading.Thread(target=load, name="model-warm-up", daemon=True).start()
