"""The retrieval benchmark's store: N synthetic pages in segments of SEGMENT_SIZE, their vectors
(embedded, cached, or tiled beyond TILE_BASE), loaded in one transaction by storage/bulk.py, and
the engine the benchmark opens over it (`benchmarks/retrieval.py` times it)."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import numpy as np

from . import common, synthetic

USER = "bench-user"
SEGMENT_SIZE = 50
TILE_BASE = 10_000  # --vectors tiled: pages embedded for real, the rest are noisy copies


def page_vectors(texts: list[str], emb: Any, cache: Path | None, progress: bool) -> np.ndarray:
    """Embed page texts in batches with the real embedder, or load them from the cache."""
    if cache is not None and cache.exists():
        mat = np.load(cache)
        if mat.shape[0] == len(texts):
            return mat
    parts = []
    step = 2048
    started = time.perf_counter()
    for start in range(0, len(texts), step):
        parts.append(emb.embed(texts[start:start + step]))
        if progress:
            done = min(start + step, len(texts))
            print(f"  embedded {done}/{len(texts)} pages in {time.perf_counter() - started:.0f}s",
                  flush=True)
    mat = np.ascontiguousarray(np.vstack(parts), dtype=np.float32)
    if cache is not None:
        cache.parent.mkdir(parents=True, exist_ok=True)
        np.save(cache, mat)
    return mat


def tiled_vectors(texts: list[str], emb: Any, cache_dir: Path | None, seed: int,
                  progress: bool) -> np.ndarray:
    """Real embeddings of the first TILE_BASE pages, repeated with noise (cos ~0.96) beyond."""
    base = page_vectors(texts[:TILE_BASE], emb,
                        cache_dir / f"pages_{TILE_BASE}_seed{seed}_{emb.name}.npy"
                        if cache_dir else None, progress)
    rng = np.random.default_rng(seed)
    mat = base[np.arange(len(texts)) % len(base)].copy()
    mat[len(base):] += rng.normal(0, 0.3 / np.sqrt(mat.shape[1]),
                                  (len(texts) - len(base), mat.shape[1])).astype(np.float32)
    mat /= np.linalg.norm(mat, axis=1, keepdims=True)
    return np.ascontiguousarray(mat, dtype=np.float32)


def build_store(data_dir: Path, n: int, emb: Any, seed: int, cache_dir: Path | None,
                progress: bool = False, vectors: str = "embed", url: str | None = None,
                user: str = USER) -> tuple[Any, np.ndarray, dict[str, float]]:
    """An engine over a fresh store of n pages for one user; returns (engine, vectors, times)."""
    from memoryos_core.storage import bulk
    from memoryos_core.text import content_hash, keywords

    times: dict[str, float] = {}
    rows = synthetic.exchanges(n, seed, SEGMENT_SIZE)
    texts = [f"User: {u}\nAssistant: {a}" for _, u, a in rows]
    cache = cache_dir / f"pages_{n}_seed{seed}_{emb.name}.npy" if cache_dir else None
    with common.Timer() as t:
        if vectors == "tiled" and n > TILE_BASE:
            vecs = tiled_vectors(texts, emb, cache_dir, seed, progress)
        else:
            vecs = page_vectors(texts, emb, cache, progress)
    times["embed_pages_s"] = round(t.s, 2)
    n_seg = -(-n // SEGMENT_SIZE)
    engine = make_engine(data_dir, emb, n, url)
    with common.Timer() as t:
        segments = []
        for s in range(n_seg):
            chunk = rows[s * SEGMENT_SIZE:(s + 1) * SEGMENT_SIZE]
            kws = keywords(" ".join(u + " " + a for _, u, a in chunk), 6)
            segments.append({"summary": f"About {chunk[0][0]}: {', '.join(kws[:4])}",
                             "keywords": kws})
        seg_vecs = emb.embed([f"{s['summary']} {' '.join(s['keywords'])}" for s in segments])
        now = time.time()
        base_ts = now - n * 600.0
        pages = []
        for i, (topic, u, a) in enumerate(rows):
            ts = base_ts + i * 600.0
            pages.append({"user_text": u, "assistant_text": a, "ts": ts,
                          "segment": i // SEGMENT_SIZE, "overview": f"Conversation about {topic}",
                          "keywords": keywords(u + " " + a, 8),
                          "content_key": content_hash(u, a, f"{ts:.0f}")})
        bulk.load_pages(engine.store, user, segments, pages, vecs, seg_vecs, now)
    times["insert_s"] = round(t.s, 2)
    engine.store.close()
    return engine, vecs, times


def make_engine(data_dir: Path, emb: Any, n: int, url: str | None) -> Any:
    """The benchmark's engine: over `data_dir` (SQLite) or the database at `url`."""
    from memoryos_core import EngineConfig, MemoryEngine

    config = EngineConfig.from_env().replace(**settings_for(n))  # MEMORYOS_<NAME> apply too
    return MemoryEngine(data_dir, chat_model=common.instant_model(), embedder=emb,
                        config=config, database_url=url)


def settings_for(n: int) -> dict[str, Any]:
    """Engine settings of the benchmark: defaults, with capacity for every segment."""
    return {"consolidation": "extractive", "analysis": "extractive",
            "mid_term_capacity": max(200, -(-n // SEGMENT_SIZE) + 10)}
