"""The user's page count that retrieval reads (PostgreSQL: kept by the writes) stays exact."""

from __future__ import annotations

from memoryos_core.answer import retrieval

TEXTS = [(f"I planted {n} rows of tomatoes in bed {n}.", f"Bed {n} holds {n} rows now.")
         for n in range(14)]


def counted(engine) -> dict[tuple[str, str], int]:
    return {(r["user_id"], r["tier"]): int(r["n"]) for r in engine.store.query(
        "SELECT user_id, tier, count(*) AS n FROM exchanges GROUP BY user_id, tier")}


def check(engine) -> None:
    """What retrieval uses equals a count of the rows, for every user; on PostgreSQL the kept
    counts equal the rows for every user and tier."""
    rows = counted(engine)
    for user in ("u1", "u2"):
        assert retrieval.mid_term_pages(engine.ctx, user) == rows.get((user, "mid"), 0), user
    if engine.store.dialect == "postgresql":
        kept = {(r["user_id"], r["tier"]): int(r["n"]) for r in engine.store.query(
            "SELECT user_id, tier, n FROM exchange_counts WHERE n <> 0")}
        assert kept == rows


def test_page_count_follows_admission_import_clear_and_restore(engine):
    check(engine)
    for n, (user, assistant) in enumerate(TEXTS[:10]):  # short-term overflows into mid-term
        engine.add_exchange("u1", user, assistant, timestamp=1_700_000_000 + n * 60)
    engine.add_exchange("u2", *TEXTS[10])
    check(engine)
    assert retrieval.mid_term_pages(engine.ctx, "u1") == 10 - engine.config.short_term_capacity
    engine.import_dialogue("u1", [{"user_input": u, "agent_response": a,
                                   "timestamp": 1_700_100_000 + i * 60}
                                  for i, (u, a) in enumerate(TEXTS[10:])], fmt="playground")
    check(engine)
    engine.force_analysis("u1")  # pages filed into segments: tiers unchanged, counts too
    check(engine)
    saved = engine.clear("u1")["saved_as"]
    check(engine)
    assert retrieval.mid_term_pages(engine.ctx, "u1") == 0
    engine.restore("u1", saved)
    check(engine)
    assert retrieval.mid_term_pages(engine.ctx, "u1") == 14 - engine.config.short_term_capacity
