"""The user's search of their own memory: pages of every tier, facts and profile dimensions,
by words (the keyword index) and by meaning (the vector index), each with its dates."""

from __future__ import annotations

import json
from typing import Any, TypedDict

from ..context import Context
from ..errors import InvalidInput
from ..storage.tables import exchanges as exchanges_db
from ..storage.tables import facts as facts_db
from ..storage.tables import profile as profile_db
from ..text import STOP_WORDS, first_sentences, words

MEANING_MIN = 0.3  # cosine below which a "by meaning" neighbour is not shown (MiniLM)
MAX_QUERY = 500
RRF_K = 60  # reciprocal-rank fusion of the two lists, as retrieval fuses its lists


class FoundPage(TypedDict):
    id: int
    tier: str
    timestamp: float
    segment_id: int | None
    user: str
    assistant: str
    by_words: bool
    by_meaning: bool
    similarity: float | None


class FoundFact(TypedDict):
    id: int
    kind: str
    text: str
    sources: list[int]
    created_at: float
    updated_at: float | None
    by_words: bool
    by_meaning: bool
    similarity: float | None


class FoundDimension(TypedDict):
    dimension: str
    family: str
    level: str | None
    reason: str | None
    evidence: list[int]
    found_pages: list[int]
    updated_at: float | None
    by_words: bool


class SearchResult(TypedDict):
    """A search of one's memory: the words searched and what matched, best first."""

    query: str
    terms: list[str]
    # False when no page or fact holds a searched word: every hit is then only near in meaning
    words_found: bool
    pages: list[FoundPage]
    facts: list[FoundFact]
    profile: list[FoundDimension]


def search(ctx: Context, user_id: str, query: Any, limit: int = 20) -> SearchResult:
    """Pages, facts and profile dimensions matching a query, best first."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidInput("type something to search for")
    query = query.strip()
    if len(query) > MAX_QUERY:
        raise InvalidInput(f"a search is at most {MAX_QUERY} characters")
    terms = [w for w in dict.fromkeys(words(query)) if w not in STOP_WORDS] \
        or list(dict.fromkeys(words(query)))
    vec = ctx.embedder.embed([query])[0]
    by_words = exchanges_db.keyword_pages(ctx.store, user_id, terms, limit)
    by_meaning = [(i, s) for i, s in ctx.index.search(user_id, "page", vec, limit)
                  if s >= MEANING_MIN]
    fused: dict[int, float] = {}
    for rank, page_id in enumerate(by_words):
        fused[page_id] = fused.get(page_id, 0.0) + 1.0 / (RRF_K + rank)
    for rank, (page_id, _) in enumerate(by_meaning):
        fused[page_id] = fused.get(page_id, 0.0) + 1.0 / (RRF_K + rank)
    rows = exchanges_db.exchanges_by_id(ctx.store, user_id, list(fused))
    similarity = dict(by_meaning)
    pages = [FoundPage(id=i, tier=rows[i]["tier"], timestamp=rows[i]["ts"],
                       segment_id=rows[i]["segment_id"],
                       user=first_sentences(rows[i]["user_text"], 240),
                       assistant=first_sentences(rows[i]["assistant_text"], 240),
                       by_words=i in by_words, by_meaning=i in similarity,
                       similarity=round(similarity[i], 4) if i in similarity else None)
             for i in sorted(fused, key=lambda i: (-fused[i], i)) if i in rows][:limit]
    facts = _facts(ctx, user_id, terms, vec, limit)
    return SearchResult(query=query, terms=terms,
                        words_found=any(h["by_words"] for h in [*pages, *facts]),
                        pages=pages, facts=facts,
                        profile=_profile(ctx, user_id, terms, {p["id"] for p in pages}))


def _facts(ctx: Context, user_id: str, terms: list[str], vec: Any,
           limit: int) -> list[FoundFact]:
    """Facts (user's and assistant's) holding a query word or close in meaning."""
    near = {i: s for i, s in ctx.index.search(user_id, "fact", vec, limit) if s >= MEANING_MIN}
    wanted = set(terms)
    found: list[FoundFact] = []
    for kind in ("user", "assistant"):
        for row in facts_db.fact_rows(ctx.store, user_id, kind):
            hit_words = bool(wanted.intersection(words(row.text)))
            if hit_words or row.id in near:
                found.append(FoundFact(
                    id=row.id, kind=kind, text=row.text, sources=list(row.sources),
                    created_at=row.created_at, updated_at=row.updated_at, by_words=hit_words,
                    by_meaning=row.id in near,
                    similarity=round(near[row.id], 4) if row.id in near else None))
    found.sort(key=lambda f: (-(f["by_words"] + f["by_meaning"]), -(f["similarity"] or 0.0),
                              f["id"]))
    return found[:limit]


def _profile(ctx: Context, user_id: str, terms: list[str],
             page_ids: set[int]) -> list[FoundDimension]:
    """Profile dimensions whose name or reason holds a query word, or that rest on a found page."""
    wanted = set(terms)
    out: list[FoundDimension] = []
    for row in profile_db.profile_rows(ctx.store, user_id):
        evidence = json.loads(row["evidence"])
        said = " ".join(str(s.get("text", "")) for s in json.loads(row.get("signals") or "[]"))
        hit_words = bool(wanted.intersection(words(f"{row['dimension']} {row['reason']} {said}")))
        on_pages = sorted(page_ids.intersection(evidence))
        if hit_words or on_pages:
            out.append(FoundDimension(
                dimension=row["dimension"], family=row["family"], level=row["level"],
                reason=row["reason"], evidence=evidence, found_pages=on_pages,
                updated_at=row["updated_at"], by_words=hit_words))
    return out
