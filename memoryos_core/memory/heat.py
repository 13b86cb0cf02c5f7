"""Segment heat: alpha*N_visit + beta*L_interaction + gamma*exp(-dt/tau), computed when read."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ..config import EngineConfig
from ..storage.db import Connection
from ..storage.tables import segments as segments_db
from ..storage.tables.segments import Segment


def heat_terms(segment: Segment | Mapping[str, Any], config: EngineConfig,
               now: float) -> dict[str, float]:
    """The three terms and the total heat of a segment (or a segment row) at time `now`."""
    if isinstance(segment, Segment):
        last, n_visit, l_interaction = segment.last_visit, segment.n_visit, segment.l_interaction
    else:
        last, n_visit = float(segment["last_visit"]), int(segment["n_visit"])
        l_interaction = int(segment["l_interaction"])
    dt = max(0.0, now - last)
    recency = math.exp(-dt / config.recency_tau_seconds) if config.recency_tau_seconds else 0.0
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
