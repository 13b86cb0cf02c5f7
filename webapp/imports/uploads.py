"""Uploads kept between an import's preview and its run (any host may run it), claimed once."""

from __future__ import annotations

from flask import current_app

from memoryos_core import InvalidInput

from ..extensions import engine, uid

PREVIEWS_KEPT = 3  # previews (uploads awaiting "Import") kept per user and kind
EXPIRED = "This preview has expired or was already imported; upload again."


def keep(token: str, kind: str, data: bytes) -> None:
    """Keep a previewed upload; old previews go."""
    engine().keep_upload(uid(), token, kind, data, PREVIEWS_KEPT,
                         float(current_app.config["UPLOAD_TTL_SECONDS"]))


def kept(token: str, kind: str, take: bool = False) -> bytes:
    """A previewed upload (`take`: exactly once, so a second run fails)."""
    data = engine().kept_upload(uid(), token, kind, take=take)
    if data is None:
        raise InvalidInput(EXPIRED)
    return data
