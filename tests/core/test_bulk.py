"""storage.bulk: pages loaded at once are chained, searchable, and leave room for later ids."""

from __future__ import annotations

import time

import numpy as np

from memoryos_core.storage import bulk

TEXTS = [("I planted tomatoes", "Water them daily."), ("The tomatoes grew", "Great."),
         ("I bought a bike", "Ride safely."), ("The bike has a flat", "Patch it.")]


def _load(engine, embedder, user):
    texts = TEXTS
    now = time.time()
    segments = [{"summary": "Gardening", "keywords": ["tomatoes"]},
                {"summary": "Cycling", "keywords": ["bike"]}]
    pages = [{"user_text": u, "assistant_text": a, "ts": now - 1000 + i, "segment": i // 2,
              "overview": "", "keywords": [], "content_key": f"{user}-{i}"}
             for i, (u, a) in enumerate(texts)]
    return bulk.load_pages(engine.store, user, segments, pages,
                           embedder.embed([f"User: {u}\nAssistant: {a}" for u, a in texts]),
                           embedder.embed([s["summary"] for s in segments]), now)


def test_bulk_loaded_pages_are_chained_found_and_later_ids_are_new(engine, embedder):
    seg_ids, page_ids = _load(engine, embedder, "ann")
    assert len(seg_ids) == 2 and len(page_ids) == 4
    sent = embedder.embed([f"User: {u}\nAssistant: {a}" for u, a in TEXTS])[0]  # as loaded
    stored = engine.store.get_vectors("page", page_ids[:1])[page_ids[0]]
    assert np.array_equal(stored, np.asarray(sent, dtype=np.float32))  # binary COPY: exact
    first = engine.page("ann", page_ids[0])
    assert first["next_id"] == page_ids[1] and first["segment_id"] == seg_ids[0]
    assert engine.page("ann", page_ids[2])["prev_id"] is None  # chains stop at a segment
    trace = engine.retrieve("ann", "How is my bike?")
    assert {p["id"] for p in trace["pages"][:2]} & {page_ids[2], page_ids[3]}
    assert trace["segments"][0]["id"] == seg_ids[1]
    later = engine.add_exchange("ann", "Something new", "Noted.", maintain=False)
    assert later > max(page_ids)
    _, again = _load(engine, embedder, "bob")  # a second load takes new ids too
    assert min(again) > later
