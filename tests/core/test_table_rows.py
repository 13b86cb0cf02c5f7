"""The typed rows of the main tables read every column their table has, on both backends."""

from __future__ import annotations

import dataclasses

from memoryos_core.storage.tables.exchanges import Exchange
from memoryos_core.storage.tables.facts import Fact
from memoryos_core.storage.tables.segments import Segment

# columns a typed row leaves out on purpose: PostgreSQL's generated keyword vector
LEFT_OUT = {"exchanges": {"words"}, "segments": set(), "facts": set()}


def _columns(store, table: str) -> set[str]:
    cur = store.connect().execute(f"SELECT * FROM {table} LIMIT 0")
    return {d[0] for d in cur.description}


def test_each_typed_row_has_a_field_for_every_column_of_its_table(engine):
    for table, row in (("exchanges", Exchange), ("segments", Segment), ("facts", Fact)):
        fields = {f.name for f in dataclasses.fields(row)}
        assert _columns(engine.store, table) - LEFT_OUT[table] == fields, table


def test_typed_rows_come_back_from_a_memory_that_was_used(engine):
    for i in range(engine.config.short_term_capacity + engine.config.consolidation_batch + 1):
        engine.chat("u1", f"I keep a garden of tomatoes, note {i}")
    engine.force_analysis("u1")
    state = engine.state("u1")
    segment = state["mid_term"]["segments"][0]
    page = engine.page("u1", segment["pages"][0]["id"])
    assert page["segment_id"] == segment["id"] and page["tier"] == "mid"
    assert isinstance(page["keywords"], list) and isinstance(segment["keywords"], list)
    assert engine.page("u1", state["short_term"]["exchanges"][0]["id"])["tier"] == "short"
