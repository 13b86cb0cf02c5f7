"""The sentences of memory that may answer a question on memory, read as the user told them.

The prompt's facts, the user's side of its best pages and of the recent exchanges, cut where
one message says several things (clauses, list items, a clause with its own subject), read as
corrected (repairs.py), and kept only where they tell something: no question, no request.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ..llm import Embedder
from ..memory import repairs
from ..memory.fact_history import asks_about_now, asks_about_past, says_change
from ..memory.grounding import grounding
from ..text import casual_restored, sentences
from . import courtesy, router, slot, slot_features
from .asking import after_request, asks, before_question
from .lists import list_parts, named_number_parts, other_subject_parts, refers_back
from .types import Retrieval

CANDIDATE_PAGES = 6  # pages of the prompt whose sentences may answer
REQUEST_SHARE = 0.5  # a candidate the router gives to the model at more than this is no answer
TERSE_WORDS = 6  # a message of sentences no longer is read whole where one is a fragment
MAX_SENTENCE_CHARS = 600  # longer ones (a pasted document) are never said back: nor cut
NEWS_CHARS = 320  # a message of news said whole for a question on now, at most
BRIEF_WORDS = 5  # a sentence this short is said with the rest of its message



class Said(NamedTuple):
    """A sentence of memory that may answer; `aside`: a statement cut from before a question."""

    sentence: str
    page_id: int | None
    fact_id: int | None
    timestamp: float | None
    aside: bool = False


def told_candidates(embedder: Embedder, qvec: np.ndarray, found: Sequence[Said],
                    asked: Collection[int] = ()) -> tuple[list[slot.Candidate], np.ndarray]:
    """The candidates that tell something, with the vectors of the question (`qvec`) and of
    them: no part of a message the chat answered from memory (`asked`: their page ids; "n
    wat job i had before that" is not what the user told), nor a question on memory typed
    without its question mark ("my son name what ah"), by the router that read it as one
    when it was asked; a statement cut from before a question counts where it reads
    likeliest as told ("we have a dog, Chispa", not the heading "Train vs car vs e-bike")."""
    kept = [c for c in found if c.page_id not in asked]
    said = [slot.Candidate(*c[:4]) for c in kept]
    texts = [c.sentence for c in said]
    vecs = np.asarray(embedder.embed(texts), dtype=np.float32) if texts else \
        np.zeros((0, len(qvec)), dtype=np.float32)
    keep = [i for i, r in enumerate(router.routes(embedder, texts, vecs)) if r.route != "memory"
            and (not kept[i].aside or max(r.probabilities, key=r.probabilities.__getitem__)
                 == "told")
            # a sentence likelier a request than all else asks, it tells nothing ("Suggest a
            # menu that avoids groundnuts" took the chance of "I'm allergic to groundnuts")
            and r.probabilities.get("model", 0.0) <= REQUEST_SHARE]
    return [said[i] for i in keep], np.vstack([qvec[None, :], vecs[keep]])


def candidates(trace: Retrieval, recent: Sequence[Mapping[str, Any]] = ()) -> list[Said]:
    """(sentence, page id, fact id, time) of the prompt's facts, its pages and its recent
    exchanges (the user's side: "My name is Priya" said three turns ago answers "What's my
    name?"); a page sentence that states a replaced fact is left out unless the question is on
    the past, and a question is never an answer."""
    past = asks_about_past(trace.query)
    replaced = [] if past else [f for f in trace.facts.get("superseded_left_out", [])]
    out: list[Said] = []  # fact ids are > 0
    # the best-ranked pages: a continuation shown after its page (the next exchange, often
    # small talk or another question) does not push a page that matches out of the six
    pages = [(p["id"], p.get("user", ""), p.get("timestamp")) for p in trace.pages
             if p.get("selected") and p.get("continues") is None][:CANDIDATE_PAGES]
    pages += [(int(r["id"]), str(r.get("user_text") or ""), r.get("ts")) for r in recent]
    # "im leilani, i teach…" read as in full (it splits so), each as corrected, in itself and
    # by the corrections told after it (repairs.py)
    pages = [(page_id, casual_restored(text), ts) for page_id, text, ts in pages]
    fixed = repairs.as_corrected([(ts, text) for _, text, ts in pages])
    for kind in ("user", "assistant"):
        for f in trace.facts[kind]:
            if f.get("in_prompt") and (past or not f.get("superseded")):
                out.append(Said(fixed(f.get("valid_from"), f["text"]), None, f["id"],
                                f.get("valid_from")))
    for page_id, text, ts in pages:
        typed = sentences(fixed(ts, text))
        said = [s for s in typed if len(s.split()) >= 3]  # shorter ones: with_fragments
        for k, s in enumerate(said):
            if "?" in s and not asks(s) and len(s) <= MAX_SENTENCE_CHARS:
                out += [Said(c, page_id, None, ts, aside=True) for c in before_question(s)]
            elif asks(s) and len(s) <= MAX_SENTENCE_CHARS:
                out += [Said(c, page_id, None, ts, aside=True) for c in after_request(s)]
            if "?" in s or asks(s) or len(s) > MAX_SENTENCE_CHARS:
                continue
            if k and refers_back(s) and not asks(said[k - 1]):
                # "He was a watchmaker." says whose job only with the sentence before it
                # ("I have a companion, Walter."): both, as one candidate, beside it; said
                # for the first where it may answer (slot.continued)
                out.append(Said(f"{said[k - 1]} {s}", page_id, None, ts))
            if any(page_id in f["sources"] and grounding(f["text"], s) >= 0.6
                   for f in replaced):
                continue
            # "My name is Dana and I work as a nurse": each half answers its own question
            # (cosine to "What's my name?" 0.35 whole, 0.53 for its half, MiniLM)
            parts = courtesy.clauses(s)
            # a list's items apart too: "What animal is Shelly?" by "We have a tortoise
            # called Shelly", not by the sentence that names the dog first
            parts += [item for c in parts for item in list_parts(c) + named_number_parts(c)
                      if item not in parts]
            # and a clause with a subject of its own: "Which day is my blood test?" by "I
            # have my blood tests every second Tuesday", not with the bowls club on Fridays
            parts += [item for c in parts for item in other_subject_parts(c) if item not in parts]
            out += [Said(c, page_id, None, ts) for c in parts if len(c.split()) >= 3]
            if len(parts) > 1:
                out.append(Said(s, page_id, None, ts))
        out += [Said(c, page_id, None, ts) for c in with_fragments(typed)]
    return out


def news_of(question: str, c: slot.Candidate, trace: Retrieval,
            recent: Sequence[Mapping[str, Any]] = ()) -> slot.Candidate:
    """For a question on what holds now, a sentence of a message that tells a change said with
    the rest of what that message tells ("Bought new van." with "Crafter, 2021, white."; "sold
    the shop to Jake last week" with "I'm retired now"): the new value is often in another
    sentence of the news. So too a message's first sentence of a few words, which opens what the
    message goes on to tell ("I have two kids. Rudo is 6 and Tapiwa is 11.", "Knee surgery 14
    March. Left knee."). The sentence as found elsewhere, or where the message is long."""
    if c.page_id is None:
        return c
    said = {p["id"]: p.get("user", "") for p in trace.pages}
    said.update({int(r["id"]): str(r.get("user_text") or "") for r in recent})
    told = [s for s in sentences(casual_restored(said.get(c.page_id) or ""))
            if "?" not in s and not asks(s)]
    whole, own = " ".join(told), c.sentence.rstrip(" .!")
    brief = bool(told) and len(c.sentence.split()) <= BRIEF_WORDS and own == told[0].rstrip(" .!")
    if not (brief or asks_about_now(question)) or len(told) < 2 or len(whole) > NEWS_CHARS \
            or not (brief or says_change(whole)) or own not in whole:
        return c
    return slot.Candidate(whole, c.page_id, c.fact_id, c.timestamp)


def with_fragments(said: Sequence[str]) -> list[str]:
    """A message's fragments of one or two words that tell something ("Dog: Bamse. Norwegian
    elkhound. 7 years.", "Moved. Stavanger now."), too short to answer alone, read with the
    sentences around them: the whole message where all of it is typed so, else each with the
    next (or, last, the one before)."""
    short = [k for k, s in enumerate(said) if len(s.split()) < 3 and not _nothing_told(s)]
    if not short or len(said) < 2:
        return []
    if all(len(s.split()) <= TERSE_WORDS for s in said):
        return [" ".join(said)] if not any("?" in s or asks(s) for s in said) else []
    pairs = [(k, k + 1) if k + 1 < len(said) else (k - 1, k) for k in short]
    return [f"{said[a]} {said[b]}" for a, b in dict.fromkeys(pairs)
            if not any("?" in said[j] or asks(said[j]) for j in (a, b))]


def _nothing_told(sentence: str) -> bool:
    """Small talk alone ("ok.", "Thanks!") or no word of meaning: no fragment of a fact."""
    return courtesy.says_nothing(sentence) or not slot_features.content(sentence)
