"""The slot model's fit learns which candidate answers, and when none of them does."""

from __future__ import annotations

import numpy as np
import pytest

from memoryos_core.answer.slot_model import SlotModel, fit_choice


def test_the_fit_learns_the_answering_feature_and_none_where_no_candidate_has_it():
    rng = np.random.default_rng(7)
    xs, answers = [], []
    for k in range(200):
        x = rng.normal(size=(int(rng.integers(2, 8)), 3)) * 0.3
        if k % 3:  # an answer among them: its first feature stands out
            right = int(rng.integers(0, len(x)))
            x[right, 0] += 2.0
            answers.append([right])
        else:  # nothing told answers it
            answers.append([])
        xs.append(x)
    xs.append(np.zeros((0, 3)))  # a question with no candidate at all
    answers.append([])
    weights, none = fit_choice(xs, answers, steps=500)
    model = SlotModel(("a", "b", "c"), weights, none, 0.5, 0.3, "test")
    asked = np.array([[0.1, 0.2, -0.1], [2.1, 0.0, 0.1], [-0.2, 0.1, 0.0]])
    assert int(np.argmax(model.choice(asked))) == 1 and model.choice(asked)[1] > 0.5
    # none of them stands out: "none" holds most of the probability
    assert model.choice(asked[[0, 2]]).sum() < 0.5


def test_an_unsure_candidate_is_offered_only_where_it_is_about_what_was_asked():
    from memoryos_core.answer import slot

    model = SlotModel(("a",), np.zeros(1), 0.0, 0.85, 0.45, "test", related_hedge=0.2)
    chances = np.array([0.3, 0.05])  # "none of them" holds the rest: sure about 0.3

    def offered(related: bool) -> int | None:
        found = slot.Setting([True, True], False, [False, False], [False, False],
                             [False, False], [0.0, 1.0], ["my son jun hao", "i run a stall"],
                             [[], []], [related, False])
        pick, maybe, sure = slot.choose(chances, found, model)
        assert pick is None and 0.2 <= sure < 0.45
        return maybe

    # "my son name what ah" by "my son Jun Hao…": offered as "not sure"
    assert offered(related=True) == 0
    # "what car my husband drive" by a sentence on something else: "I don't remember"
    assert offered(related=False) is None


@pytest.mark.real_model  # the setting classes the candidates with the embedding model
def test_a_candidate_shares_the_question_s_words_or_names_its_head_to_be_related(embedder):
    from memoryos_core.answer import slot

    said = ["My son Jun Hao is studying engineering in KL.", "I run a noodle stall.",
            "My husband Ah Keong fries the noodles."]
    candidates = [slot.Candidate(s, i, None, float(i)) for i, s in enumerate(said)]
    question = "what is my son doing"
    vecs = np.asarray(embedder.embed([question] + said), dtype=np.float32)
    found = slot.setting(embedder, question, vecs[0], vecs[1:], candidates)
    assert found.related == [True, False, False]
