"""Each exchange's number among its user's (issue 48): what the web shows and links by."""

from __future__ import annotations

import pytest

from memoryos_core.errors import NotFound


def test_numbers_count_each_users_own_exchanges_and_survive_a_restore(make_engine):
    engine = make_engine(consolidation="extractive", analysis="extractive")
    for n in range(6):
        engine.add_exchange("a" if n % 3 else "b", f"message {n}", "ok", maintain=False)
    ids = {u: [p["id"] for p in engine.recent_exchanges(u, 10)] for u in ("a", "b")}
    assert list(engine.exchange_numbers("a", ids["a"]).values()) == [1, 2, 3, 4]
    assert list(engine.exchange_numbers("b", ids["b"]).values()) == [1, 2]
    assert engine.exchange_numbers("b", ids["a"]) == {}  # another's: no number
    assert engine.exchange_of_number("a", 3) == ids["a"][2]
    with pytest.raises(NotFound):
        engine.exchange_of_number("b", 3)
    saved = engine.snapshot("a")["version"]
    engine.clear("a")
    engine.restore("a", saved)
    back = {p["user"]: p["id"] for p in engine.recent_exchanges("a", 10)}
    numbers = engine.exchange_numbers("a", list(back.values()))
    assert sorted(numbers.values()) == [1, 2, 3, 4]  # the same numbers, whatever the ids
    engine.add_exchange("a", "a new one", "ok", maintain=False)
    [new] = [p["id"] for p in engine.recent_exchanges("a", 10) if p["user"] == "a new one"]
    assert engine.exchange_numbers("a", [new]) == {new: 5}
