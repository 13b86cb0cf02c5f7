"""Retrieval and time: a query that names a date searches that period's pages; the memory
block and the recent conversation share one context budget."""

from __future__ import annotations

import datetime as dt

import pytest

from memoryos_core.timeframe import named_period

NOW = dt.datetime(2026, 11, 30, 12, 0, tzinfo=dt.UTC).timestamp()


def days(text: str) -> tuple[str, str] | None:
    """The first and last UTC day of the period a text names."""
    period = named_period(text, NOW)
    if period is None:
        return None
    first, end = (dt.datetime.fromtimestamp(t, tz=dt.UTC).date() for t in period)
    return first.isoformat(), (end - dt.timedelta(days=1)).isoformat()


@pytest.mark.parametrize(("text", "expected"), [
    ("What painting did Melanie show on October 13, 2023?", ("2023-10-12", "2023-10-14")),
    ("What did Gina find on 1 February, 2023?", ("2023-01-31", "2023-02-02")),
    ("on the 5th of March 2024", ("2024-03-04", "2024-03-06")),
    ("notes from 2023-05-08", ("2023-05-07", "2023-05-09")),
    ("Which country was Evan visiting in May 2023?", ("2023-05-01", "2023-05-31")),
    ("during October, 2023", ("2023-10-01", "2023-10-31")),
    ("What did we discuss in May?", ("2026-05-01", "2026-05-31")),
    ("Where did I go in December?", ("2025-12-01", "2025-12-31")),  # the latest December past
    ("What did I say yesterday?", ("2026-11-29", "2026-11-29")),
    ("Anything new today?", ("2026-11-30", "2026-11-30")),
    ("What did I cook last week?", ("2026-11-23", "2026-11-29")),
    ("What did I read last month?", ("2026-10-01", "2026-10-31")),
    ("this month so far", ("2026-11-01", "2026-11-30")),
])
def test_named_periods(text, expected):
    assert days(text) == expected


@pytest.mark.parametrize("text", [
    "What may Caroline do next?",  # the verb, not the month
    "June 31, 2023",  # no such day
    "What is my favourite colour?",
    "I was born in 1990",
])
def test_no_period(text):
    assert named_period(text, NOW) is None


def test_a_named_day_brings_its_pages(engine):
    start = dt.datetime(2023, 10, 1, 18, 0, tzinfo=dt.UTC).timestamp()
    topics = ["We talked about the weather and the rain", "My sister called about her job",
              "I fixed the bike chain again", "The library was closed all afternoon",
              "Dinner was pasta with mushrooms"]
    for d in range(20):  # one sitting a day for 20 days, 3 pages each
        for k in range(3):
            user = "We drove to the coast and watched the waves." if (d, k) == (12, 1) \
                else f"{topics[(d + k) % 5]} (day {d})."
            engine.add_exchange("u1", user, "Sounds like a day.",
                                timestamp=start + d * 86400 + k * 60, maintain=False)
    trace = engine.retrieve("u1", "What did I do on October 13, 2023?")
    assert trace["period"] == ["2023-10-12", "2023-10-14"]
    coast = next(p for p in trace["pages"] if p["user"].startswith("We drove to the coast"))
    assert coast["selected"] and "period_rank" in coast
    undated = engine.retrieve("u1", "What did I do?")
    assert undated["period"] is None
    assert not any("period_rank" in p for p in undated["pages"])


def test_a_period_holding_most_pages_ranks_nothing(engine):
    start = dt.datetime(2023, 5, 2, 9, 0, tzinfo=dt.UTC).timestamp()
    for i in range(20):
        engine.add_exchange("u1", f"Note {i} about the garden", "Ok.", timestamp=start + i * 3600,
                            maintain=False)
    trace = engine.retrieve("u1", "What did I plant in May 2023?")
    assert trace["period"] == ["2023-05-01", "2023-05-31"]
    assert not any("period_rank" in p for p in trace["pages"])  # every page is in May


def test_long_recent_exchanges_leave_the_memory_less(make_engine):
    """The memory block and the (shortened) short-term exchanges share context_token_budget."""
    from memoryos_core.answer.memory_block import memory_budget

    assert memory_budget(1200, 1700, 400) == 1200
    assert memory_budget(1200, 1700, 900) == 800
    assert memory_budget(1200, 1700, 5000) == 300  # a quarter stays for the memory
    assert memory_budget(1200, 0, 5000) == 1200  # 0: no cap
    engine = make_engine(consolidation="extractive", analysis="extractive")
    for i in range(20):
        engine.add_exchange("u1", f"My bike trip number {i} went along the river.", "Nice.",
                            maintain=False)
    short = engine.retrieve("u1", "Where did my bike trips go?")
    assert short["token_budget"] == 1200 and short["recent_tokens"] < 500
    long_text = "word " * 200
    for _ in range(7):  # the short-term memory now holds long exchanges
        engine.add_exchange("u1", long_text, long_text, maintain=False)
    trace = engine.retrieve("u1", "Where did my bike trips go?")
    # long recent exchanges are shortened in the prompt: the memory keeps its budget
    assert trace["recent_tokens"] <= 500
    assert trace["token_budget"] == 1200
    uncapped = make_engine(consolidation="extractive", analysis="extractive",
                           context_token_budget=0)
    assert uncapped.retrieve("u1", "Where did my bike trips go?")["token_budget"] == 1200
