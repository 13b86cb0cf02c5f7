"""Long-term analysis: hot segments feed the structured profile and the fact lists."""

from __future__ import annotations

import re
import time
from typing import Any, cast

import numpy as np

from ..asides import without_asides
from ..context import Context
from ..errors import ModelError
from ..llm.structured import call_structured
from ..storage.db import Connection
from ..storage.tables import facts as facts_db
from ..storage.tables import pages as pages_db
from ..storage.tables import segments as segments_db
from ..storage.tables.segments import Segment
from ..text import WH_OPENING, casual_restored, normalise, sentences
from . import app_text, attributes, fact_history, fact_kinds, profile_update, provenance, repairs
from .grounding import content_words
from .heat import heat_terms
from .prompts import (
    PAGE_TOKENS,
    facts_messages,
    facts_schema,
    profile_messages,
    profile_schema,
    validate_facts,
    validate_profile,
)
from .reports import AnalysisReport, AnalysisTally

CHUNK_PAGES = 8  # pages per analysis call, so prompts fit a small model's window
RELATED_PER_PAGE = 3  # facts searched per analysed page, shown to the model as replaceable
RELATED_SCORE = 0.4  # ... when at least this close to the page
RELATED_FACTS = 8  # ... at most this many per call
_FIRST_PERSON = re.compile(r"\b(I|I'm|I've|I am|my|My|we|We)\b")
SHORT_FACT = 20  # a statement shorter than this is a fact only when it names a thing
# ... in a statement of what is ("I live in Paris.", "I'm a nurse.", "My dog is Rex.")
_STATIVE = re.compile(
    r"^(?:(?:I|We)(?:'m|'re| am| are| live| have| own| work| study| drive| teach| use| play|"
    r" speak| moved| love| like| hate| prefer| eat| drink| don't| do not)|My \w+(?: is| are|'s))\b")
_VOCATIVE = re.compile(r",\s*[A-Z][\w'-]*[.!]*$")
# words of a short reply that react rather than state ("I agree.", "I'm so excited!")
REACTIONS = frozenset(
    """agree agreed see understand fine glad sorry love loved hope bet guess mean feel felt
    totally absolutely definitely exactly true course promise wish appreciate excited happy
    sad thrilled proud wait miss care bad awesome amazing lovely wonderful fun funny
    interesting worry worried afraid suppose imagine believe remember forget forgot totally
    same too sounds sound fantastic perfect agree glad right wrong honestly seriously kidding
    joking laugh lol haha okay alright done ready busy tired trying try""".split())


def segments_due(ctx: Context, user_id: str, force: bool,
                 candidates: list[Segment] | None = None) -> list[Segment]:
    """Segments with unanalysed pages whose heat reached the threshold (all of them if forced);
    `candidates`: the segments with unanalysed pages when the caller has just read them."""
    rows = (segments_db.segments_with_unanalysed_pages(ctx.store, user_id) if candidates is None
            else candidates)
    now = time.time()
    return [s for s in rows
            if force or heat_terms(s, ctx.config, now)["heat"] >= ctx.config.heat_threshold]


def analyse(ctx: Context, user_id: str, force: bool = False, progress: Any = None,
            candidates: list[Segment] | None = None) -> AnalysisReport:
    """Analyse due segments in chunks of pages; each chunk is stored before pages are marked."""
    due = segments_due(ctx, user_id, force, candidates)
    tally = AnalysisTally(segments=[s.id for s in due])
    if not due:
        return tally.report()
    seg_ids = [s.id for s in due]
    pages = pages_db.unanalysed_pages(ctx.store, user_id, seg_ids)
    chunks = [pages[i : i + CHUNK_PAGES] for i in range(0, len(pages), CHUNK_PAGES)]
    for n, chunk in enumerate(chunks, start=1):
        _analyse_chunk(ctx, user_id, chunk, tally)
        if progress:
            progress(n, len(chunks), "analysis")
    report = tally.report()
    with ctx.store.transaction(user_id) as conn:
        segments_db.reset_analysed_segments(conn, user_id, seg_ids, time.time())
        ctx.store.log_event(conn, user_id, "analysis", cast(dict[str, Any], report))
    return report


def _analyse_chunk(
    ctx: Context, user_id: str, chunk: list[dict[str, Any]], tally: AnalysisTally
) -> None:
    # the assistant's own words: what the app added or quoted from memory is not analysed
    chunk = [dict(p, assistant_text=app_text.analysable_reply(p["assistant_text"]))
             for p in chunk]
    ids = [int(p["id"]) for p in chunk]
    dims: list[dict[str, Any]] | None = None
    facts: dict[str, list[dict[str, Any]]] | None = None
    if ctx.mode("analysis") == "llm":
        budget = 180 + PAGE_TOKENS * len(chunk)
        # what grounds a fact: the user's words, and the answer only where a real assistant
        # wrote it (a fact resting on the embedded model's invention is refused)
        texts = {int(p["id"]): f"{p['user_text']} {p['assistant_text']}"
                 if provenance.assistant_speaks(p) else str(p["user_text"]) for p in chunk}
        model = ctx.chat_model()
        try:  # the two calls are independent: one failing does not skip the other
            dims = call_structured(
                # the stored evidence goes in too: a level is for all of it, not this batch
                model, profile_messages(chunk, profile_update.earlier_evidence(ctx, user_id)),
                profile_schema(ids),
                lambda v: validate_profile(v, ids, texts), retries=ctx.config.structured_retries,
                max_tokens=min(600, budget), on_call=ctx.recorder(user_id, "analysis"))
        except ModelError as exc:
            tally.fallbacks.append(f"profile: {exc}")
            ctx.store.add_usage(user_id, "analysis", 0, 0, fallback=True)
        related = _related_facts(ctx, user_id, ids)
        known = [int(f["id"]) for f in related]
        try:
            facts = call_structured(
                model, facts_messages(chunk, related), facts_schema(ids, known),
                lambda v: validate_facts(v, ids, texts, known),
                retries=ctx.config.structured_retries,
                max_tokens=min(600, budget), on_call=ctx.recorder(user_id, "analysis"))
        except ModelError as exc:
            tally.fallbacks.append(f"facts: {exc}")
            ctx.store.add_usage(user_id, "analysis", 0, 0, fallback=True)
    if dims is None:
        dims = profile_update.extractive(ctx, chunk)  # signals, never a level
    judged = facts is not None  # the model said which facts replace which
    if facts is None:
        facts = extractive_facts(provenance.said_only(chunk))
    facts = app_text.without_app_facts(provenance.assistant_facts_said(facts, chunk), chunk)
    said_at = {int(p["id"]): float(p["ts"]) for p in chunk}
    fact_rows = [(kind, dict(f, valid_from=max(said_at[i] for i in f["sources"])))
                 for kind in ("user", "assistant") for f in facts[kind]]
    vecs = ctx.embedder.embed([f["text"] for _, f in fact_rows]) if fact_rows else None
    now = time.time()
    with ctx.store.transaction(user_id) as conn:
        profile_update.store(conn, user_id, dims, now, tally)
        for (kind, fact), vec in zip(fact_rows, vecs if vecs is not None else [], strict=True):
            _merge_fact(ctx, conn, user_id, kind, fact, vec, now, tally, judged)
        for kind in ("user", "assistant"):
            _enforce_fact_capacity(ctx, conn, user_id, kind)
        pages_db.mark_analysed(conn, user_id, ids)
    tally.pages += len(ids)


def _merge_fact(ctx: Context, conn: Connection, user_id: str, kind: str, fact: dict[str, Any],
                vec: np.ndarray, now: float, tally: AnalysisTally, judged: bool) -> None:
    """Insert a fact, or merge it into one with the same text or a near vector that held when
    it was said; a new fact may replace an older one on the same subject (kept as history)."""
    norm = normalise(fact["text"])
    said = float(fact["valid_from"])
    known = facts_db.facts_with_vectors(conn, user_id, kind)
    same = next((k for k in known if k["norm"] == norm and fact_history.holds_at(k, said)), None)
    if same is None:
        same = next((k for k in known if fact_history.holds_at(k, said)
                     and float(k["vec"] @ vec) >= ctx.config.fact_merge_similarity
                     and not fact_history.numbers_differ(k["text"], fact["text"])), None)
    if same is not None:
        merged = sorted(set(same["sources"]) | set(fact["sources"]))
        start = min(said, same["valid_from"] if same["valid_from"] is not None else said)
        facts_db.merge_fact_sources(conn, user_id, same["id"], merged, now, start)
        tally.facts_merged += 1
        return
    fact_id = facts_db.insert_fact(conn, user_id, kind, fact["text"], norm,
                                       fact["sources"], now, said)
    ctx.store.put_vector(conn, user_id, "fact", fact_id, vec)
    tally.facts_added.append({"id": fact_id, "kind": kind, "text": fact["text"]})
    current = [k for k in known if k["valid_until"] is None]
    if judged:  # the model's judgement: the fact it named, if still current
        olders = [k for k in current if k["id"] == fact.get("replaces")]
    else:  # by meaning: the facts of its attribute; else the closest on the same subject
        olders = _replaced_by_rule(ctx, current, fact["text"], vec)
    # said in the same turn: both hold; the user's own correction: analysis never replaces it
    mine = facts_db.user_fact_ids(conn, user_id) if olders else set()
    olders = [k for k in olders if k["valid_from"] is not None and k["valid_from"] != said
              and k["id"] not in mine]
    new = {"id": fact_id, "text": fact["text"], "valid_from": said}
    younger = [k for k in olders if k["valid_from"] > said]  # an older statement imported late
    pairs = [(k, new) for k in olders if k["valid_from"] < said]
    if younger:
        pairs.append((new, min(younger, key=lambda k: float(k["valid_from"]))))
    for old, young in pairs:
        facts_db.supersede_fact(conn, user_id, old["id"], young["id"], young["valid_from"])
        tally.facts_superseded.append({"old": old["id"], "old_text": old["text"],
                                       "new": young["id"], "new_text": young["text"]})


def _replaced_by_rule(ctx: Context, current: list[dict[str, Any]], text: str,
                      vec: np.ndarray) -> list[dict[str, Any]]:
    """The current facts a new one replaces without a model: by the learned kinds of fact
    (`fact_kinds.to_replace`), else, with an embedder they were not measured for, by the
    attribute descriptions (`fact_history.to_replace`)."""
    scored = sorted(((float(k["vec"] @ vec), k) for k in current), key=lambda sk: -sk[0])
    vecs = np.vstack([vec, *[k["vec"] for _, k in scored]])
    kinds = fact_kinds.classify_many(vecs, ctx.embedder)
    if kinds is not None:
        scored = [(cos, dict(k, kind=kind)) for (cos, k), kind in zip(scored, kinds[1:],
                                                                       strict=True)]
        return fact_kinds.to_replace(scored, text, kinds[0], ctx.config.fact_merge_similarity)
    attrs = attributes.classify(vec, ctx.embedder)
    if attrs and scored:  # the older facts' attributes matter only when the new one has one
        found = attributes.classify_many(np.vstack([k["vec"] for _, k in scored]), ctx.embedder)
        scored = [(cos, dict(k, attrs=a)) for (cos, k), a in zip(scored, found, strict=True)]
    return fact_history.to_replace(scored, text, attrs, ctx.config.fact_merge_similarity)


def _related_facts(ctx: Context, user_id: str, page_ids: list[int]) -> list[dict[str, Any]]:
    """Current facts close to the pages being analysed (the model may say one is replaced)."""
    found: dict[int, float] = {}
    for vec in ctx.index.vectors_of(user_id, "page", page_ids).values():
        for fact_id, score in ctx.index.search(user_id, "fact", vec, RELATED_PER_PAGE):
            if score >= RELATED_SCORE:
                found[fact_id] = max(score, found.get(fact_id, score))
    rows = facts_db.facts_by_id(ctx.store, user_id, list(found))
    best = sorted((i for i in found if i in rows and rows[i]["valid_until"] is None),
                  key=lambda i: -found[i])[:RELATED_FACTS]
    return [rows[i] for i in sorted(best)]


def _enforce_fact_capacity(ctx: Context, conn: Connection, user_id: str, kind: str) -> None:
    """Keep the best-supported current facts within capacity, and as many replaced ones."""
    mine = facts_db.user_fact_ids(conn, user_id)  # the user's corrections stay
    support = [f for f in facts_db.fact_support(conn, user_id, kind) if f[0] not in mine]
    gone: list[int] = []
    for history in (False, True):
        rows = [f for f in support if (f[3] is not None) == history]
        extra = len(rows) - ctx.config.fact_capacity
        if extra > 0:  # the weakest go: fewest sources, then oldest update (or end), lowest id
            rows.sort(key=lambda f: (f[3] or 0.0, f[1], f[2], f[0]) if history
                      else (f[1], f[2], f[0]))
            gone += [f[0] for f in rows[:extra]]
    # an evicted fact's history goes with it: left behind, the values it replaced would read
    # as current facts again (the timeline lists a replaced fact whose successor is gone)
    successor = facts_db.fact_successors(conn, user_id, kind)
    evicted, grew = set(gone), True
    while grew:
        more = {old for old, new in successor.items() if new in evicted and old not in evicted
                and old not in mine}
        evicted |= more
        grew = bool(more)
    facts_db.delete_facts(conn, user_id, sorted(evicted))


def extractive_facts(chunk: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """First-person statements as facts (no chat model): the user's and the assistant's; the
    user's as they stand corrected ("…on the 14th. Wait no, it's the 16th" keeps the 16th)."""
    out: dict[str, list[dict[str, Any]]] = {"user": [], "assistant": []}
    for page in chunk:
        for kind, text in (("user", repairs.repaired(page["user_text"])),
                           ("assistant", page["assistant_text"])):
            for sentence in sentences(text):  # "Dr. Vasquez" is one sentence
                sentence = sentence.strip()
                if is_statement(sentence):
                    out[kind].append({"text": statement(sentence), "sources": [int(page["id"])]})
                    break
    return out


def statement(sentence: str) -> str:
    """The sentence kept as a fact without its asides: "fyi I'm a midwife btw" is kept as
    "I'm a midwife" (the memory page shows what was told, not how it was dropped in)."""
    said = sentence.strip()
    core = without_asides(said)
    if core == said.rstrip(".!"):
        return said
    end = said[-1] if said.endswith((".", "!")) and not core.endswith((".", "!")) else ""
    return core[:1].upper() + core[1:] + end


# a sentence asking the assistant by inversion is a request, whatever it says of the user
# ("can u suggest a quick dinner i can make for her after a night shift" is no fact)
_ASKS_YOU = re.compile(r"^\W*(?:(?:can|could|would|will|do|did)\s+(?:you|u|ya)|please|pls|plz)\b",
                       re.IGNORECASE)


def is_statement(sentence: str) -> bool:
    """A first-person statement worth keeping as a fact: not a question, at most 240
    characters, and a short one (under 20) only when it names something beyond a reaction:
    "I live in Paris." and "I'm a nurse." are kept, "I agree." and "I love it!" are not; typed
    casually ("im a nurse") as much as in full."""
    sentence = casual_restored(sentence)
    if len(sentence) > 240 or sentence.endswith("?") or WH_OPENING.match(sentence) \
            or _ASKS_YOU.match(sentence) or not _FIRST_PERSON.search(sentence):
        return False
    if len(sentence) >= SHORT_FACT:
        return True
    said = _VOCATIVE.sub("", sentence)  # "I get it, Jon." names no thing: Jon is addressed
    return len(said) >= 7 and _STATIVE.match(said) is not None and (any(
        w not in REACTIONS and not w.endswith("ing") for w in content_words(said))
        or any(c.isdigit() for c in said))
