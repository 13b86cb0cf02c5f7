"""A stored trace is versioned and read through one reader: old ones read, newer ones refused."""

from __future__ import annotations

import json
import time

import pytest

from memoryos_core.answer.types import TRACE_VERSION, TraceVersionError, read_trace
from memoryos_core.storage.tables import traces as traces_db


def _store_raw(engine, user: str, exchange_id: int, raw: str) -> None:
    with engine.store.transaction(user) as conn:
        traces_db.insert_trace(conn, user, exchange_id, time.time(), raw)


def test_chat_trace_is_stored_with_its_version(engine, chat_model):
    chat_model.enqueue("Noted: a cat called Miso.")
    done = engine.chat("u1", "My cat is called Miso.")
    raw = traces_db.trace_json(engine.store, "u1", done["exchange_id"])
    assert json.loads(raw)["version"] == TRACE_VERSION == 1
    trace = engine.trace("u1", done["exchange_id"])
    assert trace == read_trace(raw) == json.loads(raw)
    assert trace["version"] == 1 and trace["model"] == done["model"]
    assert trace["query"] == "My cat is called Miso." and trace["layout"] in ("chat", "compact")


def test_unversioned_stored_trace_still_reads(engine):
    exchange_id = engine.add_exchange("u1", "hello", "hi there", maintain=False)
    old = {"query": "hello", "pages": [], "facts": {"user": [], "assistant": []},
           "prompt_parts": [{"name": "message", "tokens": 1, "items": 1}], "model": "old"}
    _store_raw(engine, "u1", exchange_id, json.dumps(old))
    trace = engine.trace("u1", exchange_id)
    assert trace["version"] == 0
    assert {k: v for k, v in trace.items() if k != "version"} == old


def test_unknown_future_version_is_refused(engine):
    exchange_id = engine.add_exchange("u1", "hello", "hi there", maintain=False)
    _store_raw(engine, "u1", exchange_id, json.dumps({"version": TRACE_VERSION + 1, "x": 1}))
    with pytest.raises(TraceVersionError, match=f"version {TRACE_VERSION + 1}"):
        engine.trace("u1", exchange_id)
    for bad in ('[1, 2]', '{"version": "2"}', '{"version": -1}'):
        with pytest.raises(TraceVersionError):
            read_trace(bad)
