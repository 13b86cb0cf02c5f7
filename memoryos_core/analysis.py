"""Long-term analysis: hot segments feed the structured profile and the fact lists."""

from __future__ import annotations

import re
import time
from typing import Any

import numpy as np

from .context import Context
from .errors import ModelError
from .heat import heat_terms
from .llm.structured import call_structured
from .persona import FAMILIES
from .prompts import (
    PAGE_TOKENS,
    facts_messages,
    facts_schema,
    profile_messages,
    profile_schema,
    validate_facts,
    validate_profile,
)
from .storage import persona_rows, segments
from .storage.db import Connection
from .text import keywords, normalise

CHUNK_PAGES = 8  # pages per analysis call, so prompts fit a small model's window
_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I am|my|My|we|We)\b")


def segments_due(ctx: Context, user_id: str, force: bool) -> list[dict[str, Any]]:
    """Segments with unanalysed pages whose heat reached the threshold (all of them if forced)."""
    rows = segments.segments_with_unanalysed_pages(ctx.store, user_id)
    now = time.time()
    return [s for s in rows
            if force or heat_terms(s, ctx.config, now)["heat"] >= ctx.config.heat_threshold]


def analyse(ctx: Context, user_id: str, force: bool = False,
            progress: Any = None) -> dict[str, Any]:
    """Analyse due segments in chunks of pages; each chunk is stored before pages are marked."""
    due = segments_due(ctx, user_id, force)
    report: dict[str, Any] = {"segments": [s["id"] for s in due], "pages": 0,
                              "profile_changes": [], "facts_added": [], "facts_merged": 0,
                              "fallbacks": []}
    if not due:
        return report
    seg_ids = [s["id"] for s in due]
    pages = segments.unanalysed_pages(ctx.store, user_id, seg_ids)
    chunks = [pages[i : i + CHUNK_PAGES] for i in range(0, len(pages), CHUNK_PAGES)]
    for n, chunk in enumerate(chunks, start=1):
        _analyse_chunk(ctx, user_id, chunk, report)
        if progress:
            progress(n, len(chunks), "analysis")
    with ctx.store.transaction(user_id) as conn:
        segments.reset_analysed_segments(conn, user_id, seg_ids, time.time())
        ctx.store.log_event(conn, user_id, "analysis", report)
    return report


def _analyse_chunk(
    ctx: Context, user_id: str, chunk: list[dict[str, Any]], report: dict[str, Any]
) -> None:
    ids = [int(p["id"]) for p in chunk]
    profile_now = persona_rows.profile_levels(ctx.store, user_id)
    dims: list[dict[str, Any]] | None = None
    facts: dict[str, list[dict[str, Any]]] | None = None
    if ctx.mode("analysis") == "llm":
        budget = 180 + PAGE_TOKENS * len(chunk)
        texts = {int(p["id"]): f"{p['user_text']} {p['assistant_text']}" for p in chunk}
        model = ctx.chat_model()
        try:  # the two calls are independent: one failing does not skip the other
            dims = call_structured(
                model, profile_messages(chunk, profile_now), profile_schema(ids),
                lambda v: validate_profile(v, ids, texts), retries=ctx.config.structured_retries,
                max_tokens=min(600, budget), on_call=ctx.recorder(user_id, "analysis"))
        except ModelError as exc:
            report["fallbacks"].append(f"profile: {exc}")
            ctx.store.add_usage(user_id, "analysis", 0, 0, fallback=True)
        try:
            facts = call_structured(
                model, facts_messages(chunk), facts_schema(ids),
                lambda v: validate_facts(v, ids, texts), retries=ctx.config.structured_retries,
                max_tokens=min(600, budget), on_call=ctx.recorder(user_id, "analysis"))
        except ModelError as exc:
            report["fallbacks"].append(f"facts: {exc}")
            ctx.store.add_usage(user_id, "analysis", 0, 0, fallback=True)
    if dims is None:
        dims = extractive_profile(ctx, user_id, chunk)
    if facts is None:
        facts = extractive_facts(chunk)
    fact_rows = [(kind, f) for kind in ("user", "assistant") for f in facts[kind]]
    vecs = ctx.embedder.embed([f["text"] for _, f in fact_rows]) if fact_rows else None
    now = time.time()
    with ctx.store.transaction(user_id) as conn:
        for dim in dims:
            old = persona_rows.profile_entry(conn, user_id, dim["dimension"])
            evidence = sorted(set(dim["evidence"]) | set(old[1] if old else []))
            persona_rows.save_profile_entry(conn, user_id, dim["dimension"], dim["family"],
                                            dim["level"], dim["reason"], evidence, now)
            if old is None or old[0] != dim["level"]:
                report["profile_changes"].append(
                    {"dimension": dim["dimension"], "from": old[0] if old else None,
                     "to": dim["level"]})
        for (kind, fact), vec in zip(fact_rows, vecs if vecs is not None else [], strict=True):
            _merge_fact(ctx, conn, user_id, kind, fact, vec, now, report)
        for kind in ("user", "assistant"):
            _enforce_fact_capacity(ctx, conn, user_id, kind)
        segments.mark_analysed(conn, user_id, ids)
    report["pages"] += len(ids)


def _merge_fact(ctx: Context, conn: Connection, user_id: str, kind: str, fact: dict[str, Any],
                vec: np.ndarray, now: float, report: dict[str, Any]) -> None:
    """Insert a fact, or merge it into an existing one with the same text or a near vector."""
    norm = normalise(fact["text"])
    same = persona_rows.fact_by_norm(conn, user_id, kind, norm)
    if same is None:
        for other, sources, other_vec in persona_rows.facts_with_vectors(conn, user_id, kind):
            if float(other_vec @ vec) >= ctx.config.fact_merge_similarity:
                same = (other, sources)
                break
    if same is not None:
        merged = sorted(set(same[1]) | set(fact["sources"]))
        persona_rows.merge_fact_sources(conn, user_id, same[0], merged, now)
        report["facts_merged"] += 1
        return
    fact_id = persona_rows.insert_fact(conn, user_id, kind, fact["text"], norm,
                                       fact["sources"], now)
    ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
    report["facts_added"].append({"id": fact_id, "kind": kind, "text": fact["text"]})


def _enforce_fact_capacity(ctx: Context, conn: Connection, user_id: str, kind: str) -> None:
    """Keep the newest, best-supported facts within capacity."""
    extra = persona_rows.fact_count(conn, user_id, kind) - ctx.config.fact_capacity
    if extra > 0:  # the weakest go: fewest sources, then oldest update, then lowest id
        weakest = sorted(persona_rows.fact_support(conn, user_id, kind),
                         key=lambda f: (f[1], f[2], f[0]))[:extra]
        persona_rows.delete_facts(conn, user_id, [f[0] for f in weakest])


_LABELS: dict[str, np.ndarray] = {}


def _interest_vectors(embedder: Any) -> np.ndarray:
    """Embeddings of the content-interest names, computed once per embedder."""
    if embedder.name not in _LABELS:
        _LABELS[embedder.name] = embedder.embed(
            [f"The user talks about {name.lower()}." for name in FAMILIES["content interests"]])
    return _LABELS[embedder.name]


def extractive_profile(
    ctx: Context, user_id: str, chunk: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """Content interests from embedding similarity of pages to interest names (no chat model)."""
    interests = list(FAMILIES["content interests"])
    labels = _interest_vectors(ctx.embedder)
    ids = [int(p["id"]) for p in chunk]
    page_vecs = ctx.index.vectors_of(user_id, "page", ids)
    out = []
    for j, name in enumerate(interests):
        support = [i for i in ids if i in page_vecs and float(page_vecs[i] @ labels[j]) >= 0.3]
        if support:
            level = "High" if len(support) >= 3 else "Medium" if len(support) == 2 else "Low"
            said = keywords(" ".join(f"{p['user_text']} {p['assistant_text']}" for p in chunk
                                     if int(p["id"]) in support), 4)
            out.append({"dimension": name, "family": "content interests", "level": level,
                        "reason": f"{len(support)} page(s) on it: {', '.join(said)}"
                        if said else f"{len(support)} page(s) on it",
                        "evidence": support})
    return out


def extractive_facts(chunk: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """First-person statements as facts (no chat model): the user's and the assistant's."""
    out: dict[str, list[dict[str, Any]]] = {"user": [], "assistant": []}
    for page in chunk:
        for kind, text in (("user", page["user_text"]), ("assistant", page["assistant_text"])):
            for sentence in re.split(r"(?<=[.!?])\s+", text):
                sentence = sentence.strip()
                if 20 <= len(sentence) <= 240 and _FIRST_PERSON.search(sentence) \
                        and not sentence.endswith("?"):
                    out[kind].append({"text": sentence, "sources": [int(page["id"])]})
                    break
    return out
