"""Profile signals without a chat model: user sentences that state the user's own interest
(learned), matched to a dimension by a word list and an embedding check; no level inferred."""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from ..text import words
from . import learned

# Measured on benchmarks/profile_quality.py (a labelled set of user sentences, small talk among
# them): the cosine a sentence must reach against the dimension's descriptions, and how far it
# must lead every other dimension. Precision at these values and beside them: docs/benchmarks.md,
# "The profile without a model".
MATCH_THRESHOLD = 0.35
MATCH_MARGIN = 0.02
MIN_WORDS = 4  # "Nice!" or "Sounds fun" name no interest
OWN_DATA = "own_interest.tsv"  # labelled sentences: the user's own interest or not
OWN_LEAST = 0.5  # probability of "own" a sentence needs (set a priori, not tuned)
MAX_SIGNALS = 50  # sentences kept per dimension, the newest

# Per dimension: words that name the topic (exact word forms, a plural 's' is stripped first)
# and descriptive sentences in the user's voice. Only topical interests are matched: style and
# personality dimensions (humour, information density, extraversion...) cannot be read off
# single sentences, so extractive analysis leaves them to a model.
LEXICON: dict[str, tuple[str, str]] = {
    "Sports Interest": (
        "run running ran runner jog jogging marathon half-marathon 5k 10k race racing sailing sail"
        " sailed boat regatta swim swimming swam cycling bike biking triathlon football soccer"
        " basketball tennis golf yoga gym workout training trained hike hiking hiked climbing"
        " climb ski skiing surf surfing rowing kayak kayaking match league team coach sport"
        " athlete baseball hockey volleyball cricket rugby fitness pilates boxing martial",
        "I ran my first half marathon last spring.|I love sailing and go out on the boat every"
        " weekend.|I play football with my team on Sundays.|I go to the gym and train for"
        " races.|We watched the tennis final together."),
    "Art Interest": (
        "pottery ceramic ceramics clay wheel glaze kiln paint painting painted painter sketch"
        " sketching drawing draw drew art artist artwork gallery museum exhibition sculpture"
        " sculpting canvas watercolor watercolour portrait photography photographer craft"
        " crafts knitting sewing embroidery",
        "I took a pottery class and made a bowl on the wheel.|I love painting landscapes in"
        " watercolour.|We visited an art gallery to see the new exhibition.|I have been sketching"
        " portraits in the evenings."),
    "Literature Interest": (
        "book books novel novels read reading author poetry poem poems library chapter fiction"
        " memoir literature writer bookstore book-club club kindle audiobook",
        "I am reading a novel for my book club.|Our book club meets every month to discuss a"
        " book.|I love poetry and read a poem every night.|My favourite author just published a"
        " new novel."),
    "Food Interest": (
        "cook cooking cooked recipe recipes bake baking baked bread cake dinner lunch breakfast"
        " restaurant meal meals food dish dishes pasta pizza sushi curry soup chef kitchen"
        " vegetarian vegan taste tasty delicious cuisine coffee tea wine cheese chocolate",
        "I cooked a new pasta recipe for dinner.|I love baking bread on weekends.|We tried a"
        " great sushi restaurant downtown.|I have been experimenting with vegetarian curries."),
    "Travel Interest": (
        "travel traveling travelling trip trips vacation holiday holidays flight flew abroad"
        " journey tour tourist visit visited visiting beach island passport hotel backpacking"
        " road-trip cruise destination country countries city",
        "I just got back from a trip to Lisbon.|We are planning a vacation to Japan next"
        " year.|I love travelling to new countries.|We booked a flight and a hotel by the beach."),
    "Music Interest": (
        "music song songs sing singing sang singer guitar piano violin drums band concert"
        " concerts album playlist choir melody musician jazz rock orchestra gig listen"
        " listening lyrics",
        "I play the guitar in a band.|We went to a concert last night.|I have been learning"
        " piano.|I love listening to jazz albums."),
    "Film Interest": (
        "movie movies film films cinema watch watched series show shows episode actor actress"
        " director netflix documentary documentaries theater theatre",
        "We watched a great movie at the cinema.|I have been binge watching a new series.|My"
        " favourite film director has a new documentary out."),
    "Tech Interest": (
        "computer computers software code coding programming program app apps laptop phone"
        " gadget gadgets tech technology ai robot robots website developer engineer engineering"
        " python javascript",
        "I have been learning to code in Python.|I built a small app for my phone.|I love new"
        " gadgets and technology."),
    "Gaming Interest": (
        "game games gaming gamer video-game console playstation xbox nintendo chess puzzle"
        " puzzles board-game tournament",
        "I play video games with my friends online.|We had a board game night.|I have been"
        " playing chess every evening."),
    "Animal Concern": (
        "dog dogs puppy cat cats kitten pet pets animal animals horse horses bird birds vet"
        " shelter rescue adopted adopt wildlife",
        "I adopted a puppy from the shelter.|My cat loves sleeping on the sofa.|I volunteer at"
        " an animal rescue."),
    "Family Concern": (
        "family kids kid children child son daughter husband wife mom mum dad mother father"
        " parents sister brother grandma grandmother grandpa grandfather baby partner",
        "I spent the weekend with my kids and my parents.|My daughter started school this"
        " year.|My mother has been ill and I look after her."),
    "Health Concern": (
        "health healthy doctor physio physiotherapist injury injured pain sick illness ill"
        " diet sleep stress therapy therapist hospital surgery medication knee back anxiety"
        " meditation recovery",
        "My doctor said I need to sleep more.|I hurt my knee and see a physio every week.|I"
        " have been trying to eat healthier and reduce stress."),
    "Education Interest": (
        "school class classes course courses study studying studied learn learning university"
        " college degree exam exams lesson lessons teacher student homework workshop",
        "I enrolled in an evening course at the university.|I am studying for my exams.|I love"
        " learning new things in workshops."),
    "Science Interest": (
        "science scientific physics chemistry biology astronomy space research experiment"
        " experiments telescope planets stars lab",
        "I love reading about astronomy and space.|I did a chemistry experiment with my"
        " kids.|I am fascinated by biology research."),
    "Financial Management Interest": (
        "money budget budgeting save saving savings invest investing investment stocks"
        " retirement mortgage loan debt finance finances bank salary expenses",
        "I am saving money for a house.|I started investing in index funds.|I keep a budget for"
        " our monthly expenses."),
    "Environmental Concern": (
        "environment environmental climate recycling recycle sustainable sustainability"
        " plastic pollution nature garden gardening plants trees conservation",
        "I care about climate change and recycle everything.|I grow vegetables in my"
        " garden.|We joined a beach clean-up to reduce plastic pollution."),
    "History Interest": (
        "history historical ancient medieval war castle castles museum archaeology century"
        " heritage",
        "I love reading about ancient history.|We visited a medieval castle.|I am interested in"
        " the history of the Second World War."),
    "Political Concern": (
        "politics political election elections vote voting government policy protest"
        " activism activist rights campaign",
        "I volunteered for the election campaign.|I care about politics and always vote.|I"
        " joined a protest for workers' rights."),
    "Religious Interest": (
        "church faith religion religious pray prayer god temple mosque spiritual"
        " spirituality bible meditation",
        "I go to church every Sunday.|My faith is important to me.|I pray every morning."),
    "Fashion Interest": (
        "fashion clothes clothing dress dresses outfit outfits style shoes shopping wardrobe"
        " designer jewelry jewellery",
        "I love shopping for new outfits.|I follow fashion designers.|I bought a new dress for"
        " the party."),
}

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_VOCAB: dict[str, frozenset[str]] = {d: frozenset(w.split()) for d, (w, _) in LEXICON.items()}
_PROTOTYPES: dict[str, np.ndarray] = {}


def prototypes(embedder: Any) -> tuple[list[str], np.ndarray, np.ndarray]:
    """(dimensions, row owner index, prototype vectors), embedded once per embedder."""
    dims = list(LEXICON)
    owner = np.array([i for i, d in enumerate(dims) for _ in LEXICON[d][1].split("|")])
    if embedder.name not in _PROTOTYPES:
        _PROTOTYPES[embedder.name] = embedder.embed(
            [s for d in dims for s in LEXICON[d][1].split("|")])
    return dims, owner, _PROTOTYPES[embedder.name]


def sentences(text: str) -> list[str]:
    """The sentences of a user turn long enough to name something."""
    out = []
    for part in _SENTENCE.split(text):
        part = part.strip()
        if len(words(part)) >= MIN_WORDS:
            out.append(part[:300])
    return out


def lexicon_hits(sentence: str) -> set[str]:
    """Dimensions whose words the sentence uses (a plural 's' stripped)."""
    found = set()
    for w in words(sentence):
        forms = {w, w[:-1]} if w.endswith("s") and len(w) > 3 else {w}
        for dim, vocab in _VOCAB.items():
            if forms & vocab:
                found.add(dim)
    return found


def score(embedder: Any, texts: list[str],
          vecs: np.ndarray | None = None) -> tuple[list[str], np.ndarray]:
    """(dimensions, a sentences x dimensions matrix of best prototype cosines); `vecs`: the
    texts' embeddings when the caller has them."""
    dims, owner, protos = prototypes(embedder)
    if texts and vecs is None:
        vecs = embedder.embed(texts)
    sims = vecs @ protos.T if texts and vecs is not None else np.zeros((0, len(owner)))
    best = np.full((len(texts), len(dims)), -1.0)
    for j in range(len(dims)):
        best[:, j] = sims[:, owner == j].max(axis=1) if len(texts) else best[:, j]
    return dims, best


def decide(dims: list[str], row: np.ndarray, hits: set[str], threshold: float = MATCH_THRESHOLD,
           margin: float = MATCH_MARGIN, use_lexicon: bool = True) -> str | None:
    """The dimension one sentence signals, or None: it must name the topic (with the lexicon),
    reach the threshold, and lead every other dimension by the margin."""
    order = np.argsort(-row)
    top = int(order[0])
    if row[top] < threshold or row[top] - row[int(order[1])] < margin:
        return None
    if use_lexicon and dims[top] not in hits:
        return None
    return dims[top]


def match(embedder: Any, pages: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Signals of a batch of pages: dimension -> [{page, text}], from the user's side only."""
    # only sentences that use an interest's words can match: the others are never embedded
    found = [(int(p["id"]), s, hits) for p in pages for s in sentences(p["user_text"])
             if (hits := lexicon_hits(s))]
    if not found:
        return {}
    vecs = embedder.embed([s for _, s, _ in found])
    dims, best = score(embedder, [s for _, s, _ in found], vecs)
    own = owned_sentences(embedder, [s for _, s, _ in found], vecs)
    out: dict[str, list[dict[str, Any]]] = {}
    for (page_id, text, hits), row, mine in zip(found, best, own, strict=True):
        dim = decide(dims, row, hits) if mine else None
        if dim is not None:
            out.setdefault(dim, []).append({"page": page_id, "text": text})
    return out


def owned(embedder: Any, vecs: np.ndarray) -> list[bool]:
    """Whether each sentence states the user's own interest: learned (memory/learned.py over
    labelled/own_interest.tsv) to refuse another person's ("My cousin plays the violin."), a
    question to the assistant ("Do you like music?") and a topic word in another sense ("I
    drive a red Honda Jazz."); every sentence with an embedder it was not measured for."""
    model = learned.model_for(OWN_DATA, embedder, train_only=False)
    if model is None:
        return [True] * len(vecs)
    return [kind == "own" and p >= OWN_LEAST for kind, p in model.predict(np.asarray(vecs))]


def owned_sentences(embedder: Any, texts: list[str], vecs: np.ndarray) -> list[bool]:
    """`owned`, and never a question (by its mark: syntax, "Have you read any good novels?"
    asks, it states nothing about the user)."""
    return [mine and not text.rstrip().endswith("?")
            for text, mine in zip(texts, owned(embedder, vecs), strict=True)]


def merge(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Stored signals plus new ones, without repeats, the newest MAX_SIGNALS kept."""
    seen = {(s.get("page"), s["text"]) for s in old}
    merged = list(old) + [s for s in new if (s["page"], s["text"]) not in seen]
    return merged[-MAX_SIGNALS:]


def summary(signals: list[dict[str, Any]], evidence: list[int], quote: int = 1) -> str:
    """'3 sentences in 3 pages: "I ran my first half marathon…"': counts, never a level."""
    n = len(signals)
    head = (f"{n} sentence{'s' if n != 1 else ''} in {len(evidence)}"
            f" page{'s' if len(evidence) != 1 else ''}")
    quotes = [s["text"] if len(s["text"]) <= 80 else s["text"][:79].rstrip() + "…"
              for s in signals[-quote:]] if quote else []
    return head + (": " + "; ".join(f"'{q}'" for q in quotes) if quotes else "")
