"""Segment heat: alpha*N_visit + beta*L_interaction + gamma*exp(-dt/tau), computed when read."""

from __future__ import annotations

import math
from typing import Any

from ..config import EngineConfig
from ..storage.db import Connection
from ..storage.tables import segments as segments_db


def heat_terms(segment: dict[str, Any], config: EngineConfig, now: float) -> dict[str, float]:
    """The three terms and the total heat of a segment row at time `now`."""
    dt = max(0.0, now - float(segment["last_visit"]))
    recency = math.exp(-dt / config.recency_tau_seconds) if config.recency_tau_seconds else 0.0
    n_visit, l_interaction = int(segment["n_visit"]), int(segment["l_interaction"])
    heat = (
        config.heat_alpha * n_visit
        + config.heat_beta * l_interaction
        + config.heat_gamma * recency
    )
    return {"heat": heat, "n_visit": n_visit, "l_interaction": l_interaction, "recency": recency}


def record_visits(
    conn: Connection, user_id: str, segment_ids: list[int], now: float
) -> None:
    """Count one visit (N_visit + 1, recency reset) for segments an answer used."""
    segments_db.count_visits(conn, user_id, segment_ids, now)
