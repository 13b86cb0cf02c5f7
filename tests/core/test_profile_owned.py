"""The profile without a model reads only the user's own interests: not another person's, not a
question to the assistant, not a topic word in another sense (issue 48)."""

from __future__ import annotations

import pytest

from memoryos_core.memory import learned, signals
from memoryos_core.testing import HashEmbedder

NOT_THE_USERS = ["I drive a red 2016 Honda Jazz.", "My cousin plays the violin.",
                 "My neighbour Tomasz has a vegetable garden.", "Do you like music?",
                 "My brother-in-law runs ultramarathons.", "Have you read any good novels lately?",
                 "Our landlord collects vintage guitars."]
THE_USERS = {"I play the guitar in a jazz band on Fridays.": "Music Interest",
             "I go running along the canal every morning.": "Sports Interest",
             "I've been cooking a lot of Persian recipes at home.": "Food Interest"}


def test_profile_owned_keeps_every_sentence_with_an_unmeasured_embedder():
    embedder = HashEmbedder()  # one the check was not measured for, in every tier
    assert learned.model_for(signals.OWN_DATA, embedder) is None
    assert signals.owned(embedder, embedder.embed(NOT_THE_USERS)) == [True] * len(NOT_THE_USERS)
    rows = learned.read(signals.OWN_DATA)
    assert {lab for lab, _ in rows} == {"own", "not"} and len(learned.split(rows)[1]) >= 30
    assert not set(NOT_THE_USERS) & {t for _, t in rows}  # the checked ones are not trained on


@pytest.mark.real_model  # whose interest a sentence states is read by meaning
def test_profile_owned_signals_only_the_users_own_interests(embedder):
    pages = [{"id": n, "user_text": t} for n, t in enumerate([*NOT_THE_USERS, *THE_USERS])]
    found = signals.match(embedder, pages)
    said = {s["text"]: dim for dim, items in found.items() for s in items}
    assert not set(said) & set(NOT_THE_USERS)
    assert sum(said.get(t) == dim for t, dim in THE_USERS.items()) >= 2
