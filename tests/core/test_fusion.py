"""The learned page fusion: shipped weights, its gate, and the ranking it gives retrieval."""

from __future__ import annotations

import numpy as np

from memoryos_core.answer import fusion
from memoryos_core.answer.types import PageHit

LONG_REPLY = ("Sure! Here are a few ideas you could try, each with a short note on why it"
              " might suit you and how to get started this week. ") * 4
QUESTION_WORDS = ["hiking", "boots", "trail"]


def _pages(reply: str) -> tuple[list[PageHit], dict[int, dict[str, object]]]:
    """Candidates as the fixed fusion ranks them: keyword-only hits holding one searched word
    first, the dense list's best page (holding all three) last."""
    pages, rows = [], {}
    for n in range(6):
        pages.append(PageHit(id=n + 1, fused=3 / (60 + n + 1), keyword_rank=n + 1))
        rows[n + 1] = {"user_text": f"I bought new boots number {n}", "assistant_text": reply}
    pages.append(PageHit(id=99, fused=1 / 61, vector_rank=1, vector_score=0.71))
    rows[99] = {"user_text": "Any trail for hiking in my new boots?", "assistant_text": reply}
    return pages, rows


def test_fusion_shipped_weights_fit_the_features() -> None:
    model = fusion.load()
    assert model.features == fusion.FEATURES
    assert model.weights.shape == (len(fusion.FEATURES),)
    assert np.isfinite(model.gate)


def test_fusion_ranks_a_talkative_assistants_chat_by_the_model() -> None:
    pages, rows = _pages(LONG_REPLY)
    ranked = fusion.learned_order(list(pages), rows, QUESTION_WORDS, 60)
    x = fusion.page_features(pages, rows, QUESTION_WORDS, 60)
    scores = fusion.shipped().scores(x)
    assert [p["id"] for p in ranked] == [pages[i]["id"] for i in np.argsort(-scores,
                                                                          kind="stable")]
    # the page the dense list finds best and holding every searched word comes up
    assert [p["id"] for p in ranked].index(99) < 6


def test_fusion_leaves_a_chat_between_people_to_the_fixed_weights() -> None:
    pages, rows = _pages("Oh nice, which ones?")
    assert fusion.learned_order(list(pages), rows, QUESTION_WORDS, 60) == pages


def test_retrieval_ranks_a_talkative_chat_by_the_learned_fusion(engine) -> None:
    # the same chat twice: a talkative assistant's replies, and a person's short ones
    for user, reply in (("talk", LONG_REPLY), ("people", "Oh nice, tell me more!")):
        for n in range(12):
            said = f"I went hiking on the {['coast', 'hill', 'forest'][n % 3]} trail {n}" \
                if n % 4 == 0 else f"My boots number {n} need new laces and a clean"
            engine.add_exchange(user, said, reply, timestamp=1_700_000_000 + n * 7200,
                                maintain=False)
    orders = {}
    for user in ("talk", "people"):
        trace = engine.retrieve(user, "Which trail did I hike in my boots?", record=False)
        ranked = [p for p in trace["pages"] if "continues" not in p and "repeats" not in p]
        orders[user] = [p["fused"] for p in ranked] == sorted(
            (p["fused"] for p in ranked), reverse=True)
    assert orders == {"talk": False, "people": True}
